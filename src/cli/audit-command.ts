// twofa audit verify: walks every account's audit chain in the database TWOFA_DATABASE_URL names and
// reports any entry that was deleted, edited, reordered or forged. Entries are sealed with a key
// derived from TWOFA_SECRET (or TWOFA_PREVIOUS_SECRETS for older entries), which the database never
// holds, so the command needs the same secret as the servers. A shortened or deleted chain is still
// consistent in itself: it is caught by the signed heads (service/audit-heads.ts) the servers record in
// the audit_heads table and in <TWOFA_DATA_DIR>/audit-heads.json, and by heads given with --head.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig, type Config } from '../config.js';
import type { AuditHead } from '../domain/audit-head.js';
import type { SourcedHead } from '../service/audit-heads.js';
import { EXIT_FAILURE, SilentExit, UsageError } from './cli-errors.js';
import { note, writeJson, writeLine } from './output.js';

function secretOf(config: Config): string {
  if (config.secret !== undefined) return config.secret;
  const file = path.join(config.dataDir, 'secret');
  if (!fs.existsSync(file)) throw new UsageError(`this command needs TWOFA_SECRET (the audit chain and the Twilio Auth Tokens are sealed with it): set it (or run where ${file} exists)`);
  return fs.readFileSync(file, 'utf8').trim();
}

type OpenedStore = Awaited<ReturnType<typeof import('../store/open-store.js').openStore>>;

/** The store and keyring of TWOFA_DATABASE_URL and TWOFA_SECRET, closed after `work` (also for `twofa keys auth-token`). */
export async function withAuditStore<T>(config: Config, work: (store: OpenedStore, keyring: import('../domain/pin-secrets.js').PinKeyring) => Promise<T>): Promise<T> {
  const secret = secretOf(config);
  // Loaded on use, as the other database commands do.
  const [{ openStore, postgresOptions }, { PinKeyring }] = await Promise.all([import('../store/open-store.js'), import('../domain/pin-secrets.js')]);
  // Unbounded statements, as for migrations: verifying a long chain reads as much as it has to.
  const store = await openStore(config.databaseUrl, { migrate: false, postgres: { ...postgresOptions(config), statementTimeoutMs: 0 } });
  try {
    return await work(store, new PinKeyring(secret, config.previousSecrets));
  } finally {
    await store.close();
  }
}

/** `--head` values: tokens printed by `twofa audit head` or logged by a server, several per value allowed. */
async function givenHeads(values: string[] | undefined): Promise<SourcedHead[]> {
  const { parseAuditHead } = await import('../domain/audit-head.js');
  const tokens = (values ?? []).flatMap((v) => v.split(/\s+/)).filter((t) => t.length > 0);
  return tokens.map((token) => {
    const head = parseAuditHead(token);
    if (head === null) throw new UsageError(`--head ${token.slice(0, 24)}... is not an audit head (print one with: twofa audit head)`);
    return { head, source: '--head' };
  });
}

/** The heads the servers recorded: the audit_heads table and this data folder's audit-heads.json. */
async function recordedHeads(config: Config, store: OpenedStore): Promise<SourcedHead[]> {
  const { auditHeadFilePath, readAuditHeadFile } = await import('../store/audit-head-file.js');
  const file = auditHeadFilePath(config.dataDir);
  let fromFile: AuditHead[];
  try {
    fromFile = readAuditHeadFile(file);
  } catch (err) {
    throw new UsageError(`${file} cannot be read: ${(err as Error).message}`);
  }
  return [
    ...(await store.audit.heads.list()).map((head) => ({ head, source: 'audit_heads table' })),
    ...fromFile.map((head) => ({ head, source: file })),
  ];
}

export function registerAuditCommand(program: Command): void {
  const audit = program.command('audit')
    .description('Check the hash-chained audit log (sends, delivery outcomes, verify decisions, configuration changes)');

  audit.command('verify')
    .description('Verify every account\'s audit chain: no entry deleted, edited, reordered or forged, no tail cut off')
    .option('--head <heads...>', 'also check against these signed heads (tokens printed by `twofa audit head` or logged by a server as auditHead)')
    .option('--json', 'print {"ok", "accounts", "entries", "problems": [{accountId, seq, problem}], "heads": [{accountId, seq, hash}], "checkedHeads"} as JSON')
    .addHelpText('after', `
Exit code 0 when every chain is intact, 1 when an entry is missing, edited or forged, or a chain
lost entries a signed head names (its newest entries deleted, or the whole chain). The servers record
such heads every TWOFA_AUDIT_HEAD_INTERVAL and on shutdown, in the audit_heads table, in
<TWOFA_DATA_DIR>/audit-heads.json and in their log; verify reads the table and this data folder's file.
Heads kept elsewhere (a log archive, the output of \`twofa audit head\`) are checked with --head: they
hold even if the database, audit_heads included, was rolled back.

Example:
  $ TWOFA_DATABASE_URL=postgres://twofa@db/twofa TWOFA_SECRET=... twofa audit verify --head "$(cat heads.txt)"`)
    .action(async (options: { json?: boolean; head?: string[] }) => {
      const config = loadConfig();
      const given = await givenHeads(options.head);
      const { verifyAuditChains } = await import('../service/audit-log.js');
      const report = await withAuditStore(config, async (store, keyring) => verifyAuditChains(store, keyring, [...await recordedHeads(config, store), ...given]));
      const ok = report.problems.length === 0;
      if (options.json) {
        writeJson({ ok, ...report });
      } else {
        for (const p of report.problems) writeLine(`BROKEN  account ${p.accountId}  entry ${p.seq}: ${p.problem}`);
        for (const h of report.heads) note(`head  account ${h.accountId}  entry ${h.seq}  ${h.hash}`);
        if (report.checkedHeads === 0) note('no signed head recorded or given: entries deleted from the end of a chain cannot be detected (see twofa audit head)');
        const against = `, checked against ${report.checkedHeads} signed head${report.checkedHeads === 1 ? '' : 's'}`;
        writeLine(ok ? `audit log intact: ${report.entries} entries in ${report.accounts} chain${report.accounts === 1 ? '' : 's'}${against}`
          : `audit log BROKEN: ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'} in ${report.entries} entries${against}`);
      }
      if (!ok) throw new SilentExit(EXIT_FAILURE);
    });

  audit.command('head')
    .description('Sign and record the head of every audit chain that grew, as the servers do, and print the newest heads')
    .option('--json', 'print [{"accountId", "seq", "hash", "signedAt", "head"}] as JSON')
    .addHelpText('after', `
Prints one token per account on stdout: keep them outside the database (a ticket, a log archive, another
machine) and hand them back to \`twofa audit verify --head\`. Exit code 1 when a chain already lost
entries its recorded head names (that head is kept and printed, not replaced).

Example:
  $ twofa audit head > heads.txt && twofa audit verify --head "$(cat heads.txt)"`)
    .action(async (options: { json?: boolean }) => {
      const config = loadConfig();
      const [{ recordAuditHeads }, { auditHeadFilePath }, { formatAuditHead, auditHeadSignatureValid }] = await Promise.all([
        import('../service/audit-heads.js'), import('../store/audit-head-file.js'), import('../domain/audit-head.js'),
      ]);
      const { heads, problems } = await withAuditStore(config, async (store, keyring) => {
        const outcome = await recordAuditHeads({
          store, keyring, clock: Date.now, headFile: auditHeadFilePath(config.dataDir),
          logger: { info: () => undefined, error: (_fields, message) => note(message) },
        });
        const newest = new Map<string, AuditHead>();
        for (const { head } of await recordedHeads(config, store)) {
          const current = newest.get(head.accountId);
          if (auditHeadSignatureValid(keyring, head) && (current === undefined || head.seq > current.seq)) newest.set(head.accountId, head);
        }
        return { heads: [...newest.values()].sort((a, b) => a.accountId.localeCompare(b.accountId)), problems: outcome.problems };
      });
      if (options.json) writeJson(heads.map((h) => ({ accountId: h.accountId, seq: h.seq, hash: h.hash, signedAt: h.signedAt, head: formatAuditHead(h) })));
      else for (const h of heads) writeLine(formatAuditHead(h));
      for (const p of problems) note(`BROKEN  account ${p.accountId}  entry ${p.seq}: ${p.problem}`);
      if (!options.json) note(`${heads.length} head${heads.length === 1 ? '' : 's'} (one per account)`);
      if (problems.length > 0) throw new SilentExit(EXIT_FAILURE);
    });
}
