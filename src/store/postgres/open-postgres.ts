// PostgreSQL through node-postgres: one pool per node, sized by TWOFA_DATABASE_POOL_SIZE, with its own
// int8 parser (epoch milliseconds come back as numbers, without touching pg's global parsers), TLS as
// configured, and connection errors logged rather than thrown: a database restart makes queries fail
// for a moment (answered 503 with Retry-After, /readyz 503), then the pool reconnects by itself.
//
// Every wait on the database is bounded, so that a database or network that stalls fails requests
// within seconds rather than holding them (and their connections) for as long as it stalls: the wait
// for a pool connection or a new one (TWOFA_DATABASE_CONNECT_TIMEOUT), and each statement
// (TWOFA_DATABASE_STATEMENT_TIMEOUT: the server's statement_timeout, which cancels and rolls back a
// slow statement; and on this side the same plus a second, after which a statement whose answer has
// not come ends its connection). Failures that leave nothing committed become DatabaseUnavailableError
// (answered 503); one after which a write may have committed unseen does not (see failureOf).
import fs from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from '../schema.js';
import type { Subscription } from '../kysely-store.js';
import { DatabaseUnavailableError } from '../store.js';
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
  /** How long a query waits for a free connection, or for a new one to open, before it fails (TWOFA_DATABASE_CONNECT_TIMEOUT). */
  connectionTimeoutMs?: number;
  /** Longest a statement runs (TWOFA_DATABASE_STATEMENT_TIMEOUT); 0: no bound (migrations). */
  statementTimeoutMs?: number;
  logger?: Logger | undefined;
}

export const DEFAULT_POOL_SIZE = 10;

/**
 * Beyond the server's statement_timeout, how long a statement's answer is awaited before its
 * connection is ended. The server cancels a slow statement itself (a clean failure, rolled back); only
 * a database or network that does not answer at all gets this far.
 */
export const UNANSWERED_GRACE_MS = 1_000;

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
    ...(options.connectionTimeoutMs ? { connectionTimeoutMillis: options.connectionTimeoutMs } : {}),
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
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

/** Statements that open and end a transaction block (Kysely sends these words alone). */
const BEGINS = /^\s*(begin|start\s+transaction)\b/i;
const COMMITS = /^\s*(commit|end)\s*;?\s*$/i;
const ROLLS_BACK = /^\s*(rollback|abort)\s*;?\s*$/i;
/** Statements that write nothing by themselves, outside a transaction too. */
const WRITES_NOTHING = /^\s*(select|show|values|explain|begin|start|rollback|abort|set|reset|listen|unlisten|savepoint|release)\b/i;

/** SQLSTATE classes and codes of a connection that broke or a server that cannot serve now (not of the statement). */
const UNAVAILABLE_STATE = /^(08...|57P0[1-3]|53300|57014)$/;
/** query_canceled: statement_timeout (or an operator) cancelled the statement, which was rolled back. */
const CANCELED = '57014';

function sqlStateOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * A pool connection that sends the registered statements (named-statements.ts) prepared by name,
 * bounds the wait for each answer, and tells what a failure means for the writes (failureOf).
 */
class BoundedClient extends pg.Client {
  /** Set from the pool's options: how long an answer is awaited before the connection is ended (0: forever). */
  answerTimeoutMs = 0;
  /** Between BEGIN and COMMIT/ROLLBACK: a statement there commits nothing by itself. */
  inTransaction = false;
  /**
   * Set when a statement that may have committed lost its answer: the rollback Kysely then tries on
   * this connection fails too, and must not turn the uncertain outcome into a clean failure.
   */
  outcomeUnknown = false;

  /**
   * What a failed statement's error becomes. A statement that commits nothing by itself, or that the
   * server cancelled, failed cleanly: when the database is the cause (a broken connection, no answer,
   * a server shutting down or full) it becomes DatabaseUnavailableError, a 503 the client may retry.
   * A COMMIT or a write outside a transaction whose answer was lost may have committed: retried, it
   * would be done twice (a second PIN sent, an attempt counted twice), so its error stays as it is (a
   * 500, the outcome unknown). Errors of the statement itself (a constraint, a rate limit) are the caller's.
   */
  failureOf(err: unknown, statement: { mayCommit: boolean; commit: boolean }, timedOut: boolean): unknown {
    if (this.outcomeUnknown) return err;
    const state = sqlStateOf(err);
    if (state !== undefined && !UNAVAILABLE_STATE.test(state)) return err;
    const cleanlyCancelled = state === CANCELED && !statement.commit;
    if (statement.mayCommit && !cleanlyCancelled) {
      this.outcomeUnknown = true;
      return err;
    }
    const reason = timedOut ? `no answer from the database within ${this.answerTimeoutMs} ms` : `database unavailable: ${(err as Error).message}`;
    return new DatabaseUnavailableError(reason, { cause: err });
  }
}

BoundedClient.prototype.query = function query(this: BoundedClient, ...args: unknown[]): unknown {
  const [text, values] = args;
  // Looked up at each call, so that whatever wraps pg.Client's query (the bench's statement counter) still sees it.
  const send = pg.Client.prototype.query as (this: pg.Client, ...a: unknown[]) => unknown;
  // Kysely sends (text, values) and awaits a promise; anything else (a callback) passes through untouched.
  if (typeof text !== 'string' || args.length > 2 || (values !== undefined && !Array.isArray(values))) return send.apply(this, args);
  const name = values !== undefined ? nameOf(text) : undefined;
  const commit = COMMITS.test(text);
  const statement = { commit, mayCommit: commit || (!this.inTransaction && !WRITES_NOTHING.test(text)) };
  if (BEGINS.test(text)) this.inTransaction = true;
  else if (commit || ROLLS_BACK.test(text)) this.inTransaction = false;
  const answer = (name === undefined ? send.apply(this, args) : send.call(this, { name, text, values })) as Promise<pg.QueryResult>;
  let timedOut = false;
  const timer = this.answerTimeoutMs > 0
    ? setTimeout(() => {
      timedOut = true;
      // Ends the connection: the statement fails now, the server rolls back what is not committed when
      // it sees the connection gone, and the pool replaces the connection (never reused mid-answer).
      (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    }, this.answerTimeoutMs)
    : undefined;
  return answer.then(
    (result) => {
      clearTimeout(timer);
      return result;
    },
    (err: unknown) => {
      clearTimeout(timer);
      throw this.failureOf(err, statement, timedOut);
    },
  );
} as typeof pg.Client.prototype.query;

/** A pool whose failures to hand out a connection (none free in time, none can be opened) are DatabaseUnavailableError: nothing was sent. */
class BoundedPool extends pg.Pool {
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): void;
  override connect(callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): Promise<pg.PoolClient> | void {
    if (callback) return super.connect(callback);
    return super.connect().catch((err: unknown) => {
      throw new DatabaseUnavailableError(`no database connection: ${(err as Error).message}`, { cause: err });
    });
  }
}

const silentLogger = { warn: () => undefined, info: () => undefined, error: () => undefined, debug: () => undefined } as unknown as Logger;

export function openPostgres(url: string, options: PostgresOptions = {}): {
  db: Kysely<Database>;
  close: () => Promise<void>;
  listen: (channel: string, onNotify: () => void, onLost?: () => void) => Subscription;
} {
  const logger = options.logger ?? silentLogger;
  const config = connectionConfig(url, options);
  const answerTimeoutMs = options.statementTimeoutMs ? options.statementTimeoutMs + UNANSWERED_GRACE_MS : 0;
  // BoundedClient: the hot statements prepared by name on each connection (named-statements.ts), each answer awaited at most answerTimeoutMs.
  const Client = class extends BoundedClient {
    override answerTimeoutMs = answerTimeoutMs;
  };
  const pool = new BoundedPool({
    ...config, Client, max: options.poolSize ?? DEFAULT_POOL_SIZE, idleTimeoutMillis: 30_000, maxUses: CONNECTION_MAX_USES,
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
