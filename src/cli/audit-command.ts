// twofa audit verify: walks every account's audit chain in the database TWOFA_DATABASE_URL names and
// reports any entry that was deleted, edited, reordered or forged. Entries are sealed with a key
// derived from TWOFA_SECRET (or TWOFA_PREVIOUS_SECRETS for older entries), which the database never
// holds, so the command needs the same secret as the servers.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { EXIT_FAILURE, SilentExit, UsageError } from './cli-errors.js';
import { note, writeJson, writeLine } from './output.js';

function secretOf(config: Config): string {
  if (config.secret !== undefined) return config.secret;
  const file = path.join(config.dataDir, 'secret');
  if (!fs.existsSync(file)) throw new UsageError(`the audit chain is sealed with TWOFA_SECRET: set it (or run where ${file} exists)`);
  return fs.readFileSync(file, 'utf8').trim();
}

export function registerAuditCommand(program: Command): void {
  const audit = program.command('audit')
    .description('Check the hash-chained audit log (sends, delivery outcomes, verify decisions, configuration changes)');

  audit.command('verify')
    .description('Verify every account\'s audit chain: no entry deleted, edited, reordered or forged')
    .option('--json', 'print {"ok", "accounts", "entries", "problems": [{accountId, seq, problem}], "heads": [{accountId, seq, hash}]} as JSON')
    .addHelpText('after', `
Exit code 0 when every chain is intact, 1 when an entry is missing, edited or forged. The heads (last
entry of each chain) are printed: keep a copy elsewhere, so that removing the newest entries, which
leaves a shorter but consistent chain, is detected by comparing them later.

Example:
  $ TWOFA_DATABASE_URL=postgres://twofa@db/twofa TWOFA_SECRET=... twofa audit verify`)
    .action(async (options: { json?: boolean }) => {
      const config = loadConfig();
      const secret = secretOf(config);
      // Loaded on use, as the other database commands do.
      const [{ openStore, postgresOptions }, { PinKeyring }, { verifyAuditChains }] = await Promise.all([
        import('../store/open-store.js'), import('../domain/pin-secrets.js'), import('../service/audit-log.js'),
      ]);
      const store = await openStore(config.databaseUrl, { migrate: false, postgres: postgresOptions(config) });
      let report;
      try {
        report = await verifyAuditChains(store, new PinKeyring(secret, config.previousSecrets));
      } finally {
        await store.close();
      }
      const ok = report.problems.length === 0;
      if (options.json) {
        writeJson({ ok, ...report });
      } else {
        for (const p of report.problems) writeLine(`BROKEN  account ${p.accountId}  entry ${p.seq}: ${p.problem}`);
        for (const h of report.heads) note(`head  account ${h.accountId}  entry ${h.seq}  ${h.hash}`);
        writeLine(ok ? `audit log intact: ${report.entries} entries in ${report.accounts} chain${report.accounts === 1 ? '' : 's'}`
          : `audit log BROKEN: ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'} in ${report.entries} entries`);
      }
      if (!ok) throw new SilentExit(EXIT_FAILURE);
    });
}
