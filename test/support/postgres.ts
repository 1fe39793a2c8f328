// PostgreSQL and Redis for tests: every test file (or harness) gets a database of its own, created
// through the maintenance database and dropped afterwards, so runs in parallel never meet. Without a
// server the PostgreSQL tests skip, unless TWOFA_REQUIRE_POSTGRES=1 (CI), which makes them fail.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';

/** The maintenance database of the test server (trust auth on 127.0.0.1 by default). */
export const TEST_POSTGRES_URL = process.env['TWOFA_TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env['TWOFA_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

function hostAndPort(url: string, defaultPort: number): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname || '127.0.0.1', port: Number(parsed.port || defaultPort) };
}

function tcpReachable(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function postgresAnswers(): Promise<boolean> {
  const { host, port } = hostAndPort(TEST_POSTGRES_URL, 5432);
  if (!(await tcpReachable(host, port))) return false;
  return answersQueries(TEST_POSTGRES_URL, 3000);
}

/** True if the PostgreSQL at `url` lets a client connect and answers a query. */
export async function answersQueries(url: string, connectionTimeoutMs: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectionTimeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * `skip` option for node:test: false when PostgreSQL answers, else the reason to skip; throws when
 * TWOFA_REQUIRE_POSTGRES=1, so that CI cannot pass without running these tests.
 */
export async function skipUnlessPostgres(): Promise<false | string> {
  if (await postgresAnswers()) return false;
  const { host, port } = hostAndPort(TEST_POSTGRES_URL, 5432);
  const reason = `PostgreSQL not reachable at ${host}:${port}`;
  if (process.env['TWOFA_REQUIRE_POSTGRES'] === '1') throw new Error(`${reason}, and TWOFA_REQUIRE_POSTGRES=1`);
  return reason;
}

/** Like skipUnlessPostgres, for Redis (TWOFA_REQUIRE_REDIS=1 makes it required). */
export async function skipUnlessRedis(): Promise<false | string> {
  const { host, port } = hostAndPort(TEST_REDIS_URL, 6379);
  if (await tcpReachable(host, port)) return false;
  const reason = `Redis not reachable at ${host}:${port}`;
  if (process.env['TWOFA_REQUIRE_REDIS'] === '1') throw new Error(`${reason}, and TWOFA_REQUIRE_REDIS=1`);
  return reason;
}

async function maintenance<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface TestDatabase {
  name: string;
  /** URL of the new database, for TWOFA_DATABASE_URL. */
  url: string;
  /** Runs SQL on the test database as the maintenance user (for tests that look under the hood). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  /** Ends every connection to the database, as a server restart or failover would. */
  terminateConnections(): Promise<number>;
  drop(): Promise<void>;
}

/** Creates an empty database `twofa_test_<label>_<random>`. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `twofa_test_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(5).toString('hex')}`;
  await maintenance((client) => client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`));
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]) {
      const client = new pg.Client({ connectionString: url.toString() });
      client.on('error', () => undefined);
      await client.connect();
      try {
        return await client.query<R>(text, values);
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    terminateConnections: () => maintenance(async (client) => {
      const result = await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      return result.rowCount ?? 0;
    }),
    drop: () => maintenance(async (client) => {
      // FORCE (PostgreSQL 13+) ends connections a crashed test may have left behind.
      await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
    }),
  };
}

/** Deletes the Redis keys a test wrote under its own prefix (they would expire anyway, within a day). */
export async function deleteRedisKeys(prefix: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const client = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}
