// PostgreSQL through node-postgres: one pool per node, sized by TWOFA_DATABASE_POOL_SIZE, with its own
// int8 parser (epoch milliseconds come back as numbers, without touching pg's global parsers), TLS as
// configured, and connection errors logged rather than thrown: a database restart makes queries fail
// for a moment (answered 500, /readyz 503), then the pool reconnects by itself.
import fs from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from '../schema.js';
import type { Subscription } from '../kysely-store.js';
import { nameOf } from './named-statements.js';
import { NotificationListener } from './notification-listener.js';

// Also here for callers that open the database anyway; postgres-url.js alone does not load node-postgres.
export { isPostgresUrl, redactPostgresUrl } from './postgres-url.js';

export type PostgresSslMode = 'disable' | 'require' | 'verify-full';

export interface PostgresOptions {
  /** Most connections this node opens (TWOFA_DATABASE_POOL_SIZE); the LISTEN connection comes on top. */
  poolSize?: number;
  /** TLS (TWOFA_DATABASE_SSL); undefined leaves it to the URL's sslmode parameter. */
  ssl?: PostgresSslMode | undefined;
  /** PEM file of the certificate authorities to trust (TWOFA_DATABASE_CA_FILE). */
  caFile?: string | undefined;
  /** Shown in pg_stat_activity, so an operator can tell the nodes' connections apart. */
  applicationName?: string;
  /** How long a query waits for a free connection (or a new one to open) before it fails. */
  connectionTimeoutMs?: number;
  logger?: Logger | undefined;
}

export const DEFAULT_POOL_SIZE = 10;

/**
 * How long a query waits for a pool connection (or for a new one to open) before it fails with a 500.
 * Requests on one hot rate-limit key queue on its bucket's row lock while holding their connections, so
 * a burst on one key (an attacker hammering one PIN) can keep the others waiting for a few seconds;
 * waiting beats failing them. A database that does not answer at all is noticed within this time too.
 */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 10_000;

/**
 * Uses of a pool connection before it is closed and replaced. A statement prepared by name keeps the
 * generic plan PostgreSQL made for it on that connection, from the table sizes of that moment: made
 * while rate_limit_buckets was nearly empty (a new database), it scans the table, and goes on scanning
 * it as it grows until the next ANALYZE. A new connection plans again from the sizes of its day; a
 * thousand uses cost one connection's start (a few ms) per thousand statements.
 */
export const CONNECTION_MAX_USES = 1000;

/** URL parameters through which node-postgres configures TLS; dropped when TWOFA_DATABASE_SSL decides instead. */
const URL_TLS_PARAMETERS = ['ssl', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'sslcompat'];

/**
 * Connection settings shared by the pool and the LISTEN connection. TWOFA_DATABASE_SSL, when set,
 * replaces whatever the URL says about TLS (node-postgres would otherwise let the URL win).
 */
export function connectionConfig(url: string, options: PostgresOptions): pg.ClientConfig {
  const ssl = tlsConfig(options);
  let connectionString = url;
  if (ssl !== undefined) {
    const parsed = new URL(url);
    for (const name of URL_TLS_PARAMETERS) parsed.searchParams.delete(name);
    connectionString = parsed.toString();
  }
  return {
    connectionString,
    ...(ssl !== undefined ? { ssl } : {}),
    application_name: options.applicationName ?? 'twofa',
    keepAlive: true,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
    types: { getTypeParser: typeParser as pg.CustomTypesConfig['getTypeParser'] },
  };
}

function tlsConfig(options: PostgresOptions): pg.ClientConfig['ssl'] | undefined {
  const ca = options.caFile === undefined ? undefined : readCa(options.caFile);
  switch (options.ssl) {
    case undefined:
      // A CA bundle only makes sense with verification: asking for it turns verify-full on.
      return ca === undefined ? undefined : { rejectUnauthorized: true, ca };
    case 'disable':
      if (ca !== undefined) throw new Error('TWOFA_DATABASE_CA_FILE is set but TWOFA_DATABASE_SSL=disable: use verify-full, or unset the CA file');
      return false;
    case 'require':
      // Like libpq's sslmode=require: encrypted, but the server's certificate is not checked.
      if (ca !== undefined) throw new Error('TWOFA_DATABASE_CA_FILE is set but TWOFA_DATABASE_SSL=require does not verify the server: use verify-full');
      return { rejectUnauthorized: false };
    case 'verify-full':
      // Node's TLS checks the chain (against `ca`, else the system's CAs) and the host name.
      return { rejectUnauthorized: true, ...(ca !== undefined ? { ca } : {}) };
  }
}

function readCa(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`TWOFA_DATABASE_CA_FILE: cannot read ${file}: ${(err as Error).message}`);
  }
}

const INT8_OID = 20;

/** int8 (bigint, count(*)) as a number: our bigints are epoch milliseconds and serial ids, far below 2^53. */
function parseInt8(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`bigint ${value} is beyond the safe integer range`);
  return n;
}

function typeParser(oid: number, format?: 'text' | 'binary'): unknown {
  if (oid === INT8_OID && format !== 'binary') return parseInt8;
  return format === undefined ? pg.types.getTypeParser(oid) : pg.types.getTypeParser(oid, format);
}

/** A pool connection that sends the registered statements (named-statements.ts) prepared by name. */
class NamingClient extends pg.Client {}

NamingClient.prototype.query = function query(this: pg.Client, ...args: unknown[]): unknown {
  const [text, values] = args;
  const name = args.length === 2 && typeof text === 'string' && Array.isArray(values) ? nameOf(text) : undefined;
  // Looked up at each call, so that whatever wraps pg.Client's query (the bench's statement counter) still sees it.
  const query = pg.Client.prototype.query as (this: pg.Client, ...a: unknown[]) => unknown;
  return name === undefined ? query.apply(this, args) : query.call(this, { name, text, values });
} as typeof pg.Client.prototype.query;

const silentLogger = { warn: () => undefined, info: () => undefined, error: () => undefined, debug: () => undefined } as unknown as Logger;

export function openPostgres(url: string, options: PostgresOptions = {}): {
  db: Kysely<Database>;
  close: () => Promise<void>;
  listen: (channel: string, onNotify: () => void, onLost?: () => void) => Subscription;
} {
  const logger = options.logger ?? silentLogger;
  const config = connectionConfig(url, options);
  // NamingClient: the hot statements prepared by name on each connection (named-statements.ts).
  const pool = new pg.Pool({
    ...config, Client: NamingClient, max: options.poolSize ?? DEFAULT_POOL_SIZE, idleTimeoutMillis: 30_000, maxUses: CONNECTION_MAX_USES,
  });
  // Without these a connection that dies (database restart, failover, network) would throw an
  // unhandled 'error' event and end the process. The pool drops the broken connection and opens a
  // new one on the next query; the query that was running on it fails and is answered 500.
  pool.on('connect', (client) => {
    client.on('error', (err) => logger.warn({ err: err.message }, 'database connection lost; the pool opens a new one when needed'));
  });
  pool.on('error', () => {
    // An idle connection failed: already logged by its own listener above.
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    close: () => db.destroy(),
    listen: (channel, onNotify, onLost) => {
      const listener = new NotificationListener({ config, channel, onNotify, logger, ...(onLost ? { onLost } : {}) });
      listener.start();
      return listener;
    },
  };
}
