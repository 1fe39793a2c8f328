// The PostgreSQL side of the bench: a scratch database for twofa (the project's migrations, the same
// key, applications and templates as the SQLite fixture, and the verify-wrong pool inserted in bulk),
// and pgbench's own scratch database for the stack's ceiling, `pgbench -N` measured in the same run.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import { openStore } from '../../src/store/open-store.js';
import { phoneOf, pinOf } from './identities.js';
import { BENCH_CONFIGURATION, BENCH_SECRET, WRONG_POOL_PHONES, seedConfiguration } from './twofa-fixture.js';

export const PG_ADMIN_URL = process.env['BENCH_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function onAdminDatabase(statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Drops (disconnecting whoever is on it) and creates an empty database. */
export function recreateDatabase(name: string): Promise<void> {
  return onAdminDatabase([`drop database if exists ${name} with (force)`, `create database ${name}`]);
}

export function dropDatabase(name: string): Promise<void> {
  return onAdminDatabase([`drop database if exists ${name} with (force)`]);
}

export interface PgFixture {
  url: string;
  appId: string;
  messageId: string;
  /** pinIds whose PIN is pinOf(i): verified wrong, round robin. */
  wrongPool: string[];
}

export async function preparePgDatabase(name: string, wrongPool: number): Promise<PgFixture> {
  await recreateDatabase(name);
  const url = databaseUrl(name);
  const now = Date.now();
  const store = await openStore(url);
  const seeded = await seedConfiguration(store, now);
  await store.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const keyring = new PinKeyring(BENCH_SECRET);
  const ids: string[] = [];
  try {
    const columns = ['id', 'account_id', 'application_id', 'message_id', 'channel', 'destination', 'pin_hash', 'pin_ciphertext', 'attempts_left',
      'allow_multiple_verifications', 'created_at', 'expires_at', 'delivery_status', 'sent_at', 'send_count', 'delivery_transport'];
    for (let from = 0; from < wrongPool; from += 1000) {
      const to = Math.min(wrongPool, from + 1000);
      const values: unknown[] = [];
      const rows: string[] = [];
      const random = randomBytes((to - from) * 16);
      for (let i = from; i < to; i++) {
        const id = random.toString('hex', (i - from) * 16, (i - from + 1) * 16).toUpperCase();
        ids.push(id);
        const row = [id, seeded.accountId, seeded.appId, seeded.messageId, 'sms', phoneOf(WRONG_POOL_PHONES + i), keyring.hashPin(id, pinOf(i)),
          keyring.encryptPin(id, pinOf(i)), BENCH_CONFIGURATION.pinAttempts, 0, now, now + 3_600_000, 'sent', now, 1, 'log'];
        rows.push(`(${row.map((_, k) => `$${values.length + k + 1}`).join(', ')})`);
        values.push(...row);
      }
      await client.query(`insert into pins (${columns.join(', ')}) values ${rows.join(', ')}`, values);
    }
    await client.query('analyze');
  } finally {
    await client.end();
  }
  return { url, appId: seeded.appId, messageId: seeded.messageId, wrongPool: ids };
}

/** Pending messages of the twofa database (the delivery worker's backlog). */
export async function pendingMessages(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ n: string }>(await pendingQuery(client));
    return Number(result.rows[0]!.n);
  } finally {
    await client.end();
  }
}

/** The outbox as a table (before), or first messages on their PINs and later ones in the table (migration 0019). */
async function pendingQuery(client: pg.Client): Promise<string> {
  const onPins = await client.query("select 1 from information_schema.columns where table_name = 'pins' and column_name = 'message_state'");
  return onPins.rowCount
    ? "select (select count(*) from pins where message_state = 'pending') + (select count(*) from outbox where state = 'pending') as n"
    : "select count(*) as n from outbox where state = 'pending'";
}

export interface PgbenchResult {
  tps: number;
  latencyMs: number;
  clients: number;
  durationS: number;
}

/** `pgbench -N` (the TPC-B-like transaction without the contended branch/teller updates) on its own database. */
export function runPgbench(name: string, clients: number, durationS: number): PgbenchResult {
  const url = new URL(PG_ADMIN_URL);
  const connection = ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres')];
  execFileSync('pgbench', [...connection, '-i', '-q', '-s', '10', name], { stdio: ['ignore', 'ignore', 'pipe'] });
  const out = execFileSync('pgbench', [...connection, '-N', '-c', String(clients), '-j', '2', '-T', String(durationS), name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? 0);
  const latencyMs = Number(/latency average = ([\d.]+) ms/.exec(out)?.[1] ?? 0);
  return { tps, latencyMs, clients, durationS };
}
