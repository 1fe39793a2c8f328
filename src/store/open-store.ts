// Picks the store from TWOFA_DATABASE_URL (sqlite:<file>, or postgres:// / postgresql:// for several
// nodes on one database) and brings its schema up to date.
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { KyselyStore, OUTBOX_CHANNEL } from './kysely-store.js';
import { migrateToLatest } from './migrations.js';
import { compatibilityProblem } from './postgres/compatibility.js';
import { CONFIG_CHANNEL, ConfigWriteWatch, PostgresConfigVersion } from './postgres/config-version.js';
import type { PostgresOptions } from './postgres/open-postgres.js';
import { isPostgresUrl } from './postgres/postgres-url.js';
import type { ExternalRateLimiter } from './rate-limiter.js';
import { openSqlite } from './sqlite/open-sqlite.js';

export interface OpenStoreOptions {
  /** Run migrations while opening (the default); `twofa migrate` runs them on its own. */
  migrate?: boolean;
  /** Pool, TLS and logging of a PostgreSQL store (ignored for SQLite). */
  postgres?: PostgresOptions;
  /** Counts rate limits outside the database (Redis); the caller opens and closes it. */
  rateLimiter?: ExternalRateLimiter | undefined;
}

/** The PostgreSQL settings of a loaded configuration. */
export function postgresOptions(
  config: Pick<Config, 'databasePoolSize' | 'databaseSsl' | 'databaseCaFile' | 'databaseConnectTimeoutMs' | 'databaseStatementTimeoutMs' | 'nodeId'>,
  logger?: Logger,
): PostgresOptions {
  return {
    poolSize: config.databasePoolSize, ssl: config.databaseSsl, caFile: config.databaseCaFile,
    connectionTimeoutMs: config.databaseConnectTimeoutMs, statementTimeoutMs: config.databaseStatementTimeoutMs,
    applicationName: `twofa ${config.nodeId}`.slice(0, 63), logger,
  };
}

/**
 * Migrations on a connection of their own without a statement bound: a schema change on a large table,
 * or the wait for another node's migration (an advisory lock), takes as long as it takes.
 */
async function migratePostgres(open: typeof import('./postgres/open-postgres.js').openPostgres, databaseUrl: string, options: PostgresOptions = {}): Promise<void> {
  const { db, close } = open(databaseUrl, { ...options, poolSize: 1, statementTimeoutMs: 0 });
  try {
    await migrateToLatest(db as unknown as Kysely<unknown>, 'postgres');
  } finally {
    await close();
  }
}

export async function openStore(databaseUrl: string, options: OpenStoreOptions = {}): Promise<KyselyStore> {
  const extras = options.rateLimiter ? { rateLimiter: options.rateLimiter } : {};
  if (isPostgresUrl(databaseUrl)) {
    // Loaded on use: node-postgres takes a while to load, and a SQLite node never needs it.
    const { openPostgres } = await import('./postgres/open-postgres.js');
    const { db, close, listen } = openPostgres(databaseUrl, options.postgres);
    try {
      const { rows } = await sql<{ version: string }>`select version() as version`.execute(db);
      const problem = compatibilityProblem(rows[0]?.version ?? '', { externalRateLimiter: options.rateLimiter !== undefined });
      if (problem) throw new Error(`TWOFA_DATABASE_URL: ${problem}`);
      if (options.migrate !== false) await migratePostgres(openPostgres, databaseUrl, options.postgres);
    } catch (err) {
      await close();
      throw err;
    }
    const versions = new PostgresConfigVersion();
    return new KyselyStore(db.withPlugin(new ConfigWriteWatch(() => versions.changed())), 'postgres', close, {
      ...extras,
      listen: (onQueued) => listen(OUTBOX_CHANNEL, onQueued),
      postgresConfig: { versions, listen: () => listen(CONFIG_CHANNEL, () => versions.setListening(true), () => versions.setListening(false)) },
    });
  }
  if (!databaseUrl.startsWith('sqlite:')) {
    throw new Error(`unsupported database URL: ${databaseUrl.split(':')[0]}: (expected sqlite:<file> or postgres://user:password@host:5432/database)`);
  }
  const file = databaseUrl.slice('sqlite:'.length);
  const { db, close, configVersion, durability, hotPath } = openSqlite(file === '' ? ':memory:' : file);
  if (options.migrate !== false) await migrateToLatest(db as unknown as Kysely<unknown>, 'sqlite');
  return new KyselyStore(db, 'sqlite', close, { ...extras, configVersion, sqlite: hotPath, ...(durability ? { durability } : {}) });
}
