import type { Kysely } from 'kysely';
import type { Command } from 'commander';
import { loadConfig } from '../config.js';

export function registerMigrateCommand(program: Command): void {
  program.command('migrate')
    .description('Bring the database schema up to date (the server also does this at start)')
    .option('--json', 'print {"applied": [names]} as JSON')
    .addHelpText('after', '\nExamples:\n  $ twofa migrate\n  $ TWOFA_DATA_DIR=/var/lib/twofa twofa migrate --json')
    .action(async (options: { json?: boolean }) => {
      const config = loadConfig();
      const [{ migrateToLatest }, { openStore, postgresOptions }] = await Promise.all([import('../store/migrations.js'), import('../store/open-store.js')]);
      // Unbounded statements: a schema change on a large table takes as long as it takes.
      const store = await openStore(config.databaseUrl, { migrate: false, postgres: { ...postgresOptions(config), statementTimeoutMs: 0 } });
      try {
        const applied = await migrateToLatest(store.db as unknown as Kysely<unknown>, store.dialect);
        if (options.json) process.stdout.write(`${JSON.stringify({ applied })}\n`);
        else process.stdout.write(applied.length === 0 ? 'schema is up to date\n' : `applied: ${applied.join(', ')}\n`);
      } finally {
        await store.close();
      }
    });
}
