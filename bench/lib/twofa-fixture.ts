// The database a twofa server under test starts on: the schema (the project's own migrations), an API
// key, applications and templates through the store, and PINs inserted in bulk with direct SQL (big
// transactions, no fsync) before the server opens the file. PINs of the pools have known plaintexts
// (hashed and encrypted with the server's secret, exactly as a send stores them), so that the load
// generator can verify them right or wrong; filler PINs stand for the history a busy service keeps.
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import { generateResourceId } from '../../src/domain/pin-generation.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { openStore } from '../../src/store/open-store.js';
import type { ApplicationConfiguration, Store } from '../../src/store/store.js';
import { phoneOf, pinOf } from './identities.js';

export const BENCH_SECRET = 'bench-secret-0123456789-ABCDEFGHIJ-klmnopqrstuv';
export const BENCH_API_KEY = 'tfa_bench_0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * The bench application: Infobip's defaults, except that the three limits are set as high as the
 * grammar allows (1,000,000 per day), so that no scenario but the refusal one is refused. The limits
 * are still checked and counted on every request, as in production.
 */
export const BENCH_CONFIGURATION: ApplicationConfiguration = {
  pinAttempts: 10,
  allowMultiplePinVerifications: false,
  pinTimeToLive: '15m',
  verifyPinLimit: '1000000/1d',
  sendPinPerApplicationLimit: '1000000/1d',
  sendPinPerPhoneNumberLimit: '1000000/1d',
};

/** Infobip's defaults, limits included: the SMS-pumping scenario is refused by sendPinPerPhoneNumberLimit (3/1d). */
export const DEFAULT_CONFIGURATION: ApplicationConfiguration = {
  pinAttempts: 10,
  allowMultiplePinVerifications: true,
  pinTimeToLive: '15m',
  verifyPinLimit: '1/3s',
  sendPinPerApplicationLimit: '10000/1d',
  sendPinPerPhoneNumberLimit: '3/1d',
};

/** Destinations of the verify-right pool: its PINs spread over this many numbers (phoneOf(0..n-1)). */
export const RIGHT_POOL_DESTINATIONS = 100_000;
/** Pool offsets in the phoneOf() space, so the pools never share a destination. */
export const WRONG_POOL_PHONES = 1_000_000;
const FILLER_PHONES = 2_000_000;

export interface TwofaFixture {
  file: string;
  accountId: string;
  appId: string;
  messageId: string;
  defaultsAppId: string;
  defaultsMessageId: string;
  /** pinIds whose PIN is pinOf(i), sent to phoneOf(i % RIGHT_POOL_DESTINATIONS): each verified right once. */
  rightPool: string[];
  /** pinIds whose PIN is pinOf(i), sent to phoneOf(WRONG_POOL_PHONES + i): verified wrong, round robin. */
  wrongPool: string[];
  fillerCount: number;
  seedSeconds: number;
}

export interface PinColumns {
  id: string; account_id: string; application_id: string; message_id: string; channel: string; destination: string;
  pin_hash: string; pin_ciphertext: string | null; attempts_left: number; allow_multiple_verifications: number;
  created_at: number; expires_at: number; verified_at: number | null; locked_at: number | null; delivery_status: string;
  delivery_error: string | null; sent_at: number | null; send_count: number; delivery_transport: string | null;
  provider_message_id: string | null; delivered_at: number | null;
}

/** An INSERT for the columns we know, checking that every other column of pins may be left to its default. */
export type PinInsert = (row: PinColumns) => unknown;

/** Inserts one pins row (columns added by later migrations are left to their defaults). */
/** An INSERT of the columns we know into `table`, checking that its other columns may be left to their defaults. */
function rowInsert<Row extends object>(db: BetterSqlite3.Database, table: string, known: (keyof Row & string)[]): (row: Row) => unknown {
  const columns = db.prepare(`pragma table_info(${table})`).all() as { name: string; notnull: number; dflt_value: unknown }[];
  for (const c of columns) {
    if (!(known as string[]).includes(c.name) && c.notnull === 1 && c.dflt_value === null) throw new Error(`${table}.${c.name} is new and NOT NULL: teach bench/lib/twofa-fixture.ts to fill it`);
  }
  const present = known.filter((k) => columns.some((c) => c.name === k));
  // Positional parameters: binding 21 named ones costs more than the insert itself.
  const statement = db.prepare(`insert into ${table} (${present.join(', ')}) values (${present.map(() => '?').join(', ')})`);
  return (row: Row) => statement.run(present.map((k) => row[k]));
}

/** Inserts one pins row (columns added by later migrations are left to their defaults). */
export function pinInsert(db: BetterSqlite3.Database): PinInsert {
  return rowInsert<PinColumns>(db, 'pins', ['id', 'account_id', 'application_id', 'message_id', 'channel', 'destination', 'pin_hash', 'pin_ciphertext', 'attempts_left',
    'allow_multiple_verifications', 'created_at', 'expires_at', 'verified_at', 'locked_at', 'delivery_status', 'delivery_error', 'sent_at',
    'send_count', 'delivery_transport', 'provider_message_id', 'delivered_at']);
}

interface OutboxColumns {
  id: string; pin_id: string; account_id: string; channel: string; request: string; state: string; attempts: number; next_attempt_at: number;
  lease_until: number; last_error: string | null; created_at: number; updated_at: number; transport: string | null; provider_message_id: string | null;
}

interface EventColumns {
  id: string; pin_id: string; account_id: string; at: number; event: string; channel: string | null; transport: string | null; provider_message_id: string | null; error: string | null;
}

export interface FixtureOptions {
  file: string;
  rightPool: number;
  wrongPool: number;
  /** Ended PINs of the last 30 days (expired, ciphertext erased, most verified). */
  filler: number;
  log?: (line: string) => void;
}

export interface SeededConfiguration {
  accountId: string;
  appId: string;
  messageId: string;
  defaults: { appId: string; messageId: string };
}

/** The API key, the two applications and their templates, through the store (any dialect). */
export async function seedConfiguration(store: Store, now: number): Promise<SeededConfiguration> {
  const { record } = await createApiKey(store, { key: BENCH_API_KEY, label: 'bench', now });
  const accountId = record.accountId;
  const apps: { appId: string; messageId: string }[] = [];
  for (const [name, configuration] of [['bench', BENCH_CONFIGURATION], ['bench-defaults', DEFAULT_CONFIGURATION]] as const) {
    const appId = generateResourceId();
    const messageId = generateResourceId();
    await store.insertApplication({ id: appId, accountId, name, enabled: true, configuration, createdAt: now, updatedAt: now });
    await store.insertMessageTemplate({
      id: messageId, accountId, applicationId: appId, kind: 'sms_voice', pinType: 'NUMERIC', pinLength: 6,
      messageText: 'Your verification code is {{pin}}', senderId: null, language: 'en', voiceName: null, repeatDtmf: null, speechRate: null, regional: null,
      createdAt: now, updatedAt: now,
    });
    apps.push({ appId, messageId });
  }
  const [{ appId, messageId }, defaults] = apps as [{ appId: string; messageId: string }, { appId: string; messageId: string }];
  return { accountId, appId, messageId, defaults };
}

export async function prepareTwofaDatabase(options: FixtureOptions): Promise<TwofaFixture> {
  const started = Date.now();
  const now = Date.now();
  const store = await openStore(`sqlite:${options.file}`);
  const { accountId, appId, messageId, defaults } = await seedConfiguration(store, now);
  await store.close();

  const db = new BetterSqlite3(options.file);
  // Seeding only: nothing is acknowledged to anyone until the server opens the file (WAL, FULL).
  db.pragma('synchronous = OFF');
  db.pragma('journal_mode = OFF');
  db.pragma('cache_size = -1048576');
  const insert = pinInsert(db);
  const keyring = new PinKeyring(BENCH_SECRET);
  const base: Omit<PinColumns, 'id' | 'destination' | 'pin_hash' | 'pin_ciphertext'> = {
    account_id: accountId, application_id: appId, message_id: messageId, channel: 'sms', attempts_left: BENCH_CONFIGURATION.pinAttempts,
    allow_multiple_verifications: 0, created_at: now, expires_at: now + 3_600_000, verified_at: null, locked_at: null, delivery_status: 'sent',
    delivery_error: null, sent_at: now, send_count: 1, delivery_transport: 'log', provider_message_id: null, delivered_at: null,
  };

  const pool = (count: number, destination: (i: number) => string): string[] => {
    const ids: string[] = [];
    const batch = db.transaction((from: number, to: number) => {
      // One read of randomness per batch: a 16-byte randomBytes() per PIN costs more than its insert.
      const random = randomBytes((to - from) * 16);
      for (let i = from; i < to; i++) {
        const id = random.toString('hex', (i - from) * 16, (i - from + 1) * 16).toUpperCase();
        ids.push(id);
        insert({ ...base, id, destination: destination(i), pin_hash: keyring.hashPin(id, pinOf(i)), pin_ciphertext: keyring.encryptPin(id, pinOf(i)) });
      }
    });
    for (let i = 0; i < count; i += 50_000) batch(i, Math.min(count, i + 50_000));
    return ids;
  };
  const rightPool = pool(options.rightPool, (i) => phoneOf(i % RIGHT_POOL_DESTINATIONS));
  const wrongPool = pool(options.wrongPool, (i) => phoneOf(WRONG_POOL_PHONES + i));
  seedFiller(db, insert, base, options.filler, now, options.log);
  db.exec('analyze');
  db.pragma('journal_mode = WAL');
  db.close();
  // Seeding writes without syncing; a server's database file is synced as it goes. Flushed here, so
  // that the first fsync of a measured run does not pay for the whole seeded file.
  const fd = fs.openSync(options.file, 'r');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  return {
    file: options.file, accountId, appId, messageId, defaultsAppId: defaults.appId, defaultsMessageId: defaults.messageId,
    rightPool, wrongPool, fillerCount: options.filler, seedSeconds: (Date.now() - started) / 1000,
  };
}

/**
 * Ended PINs spread over the last 30 days (the default retention): expired, ciphertext erased, 80 %
 * verified, each with its outbox row and two delivery events. Their ids are random but generated in ascending order (the top 32 bits count up), so the
 * primary-key index is appended to rather than split at random: same keys' distribution, far faster.
 */
function seedFiller(db: BetterSqlite3.Database, insert: PinInsert, base: Omit<PinColumns, 'id' | 'destination' | 'pin_hash' | 'pin_ciphertext'>, count: number, now: number, log?: (line: string) => void): void {
  if (count === 0) return;
  const started = Date.now();
  // Secondary indexes are dropped and built again afterwards: one sort instead of random inserts.
  const indexes = count >= 100_000
    ? db.prepare("select name, sql from sqlite_master where type = 'index' and tbl_name in ('pins', 'outbox', 'delivery_events') and sql is not null").all() as { name: string; sql: string }[]
    : [];
  // Each ended PIN keeps its history as a send leaves it: its outbox row (done) and two delivery events.
  const insertOutbox = rowInsert<OutboxColumns>(db, 'outbox', ['id', 'pin_id', 'account_id', 'channel', 'request', 'state', 'attempts', 'next_attempt_at', 'lease_until',
    'last_error', 'created_at', 'updated_at', 'transport', 'provider_message_id']);
  const insertEvent = rowInsert<EventColumns>(db, 'delivery_events', ['id', 'pin_id', 'account_id', 'at', 'event', 'channel', 'transport', 'provider_message_id', 'error']);
  for (const index of indexes) db.exec(`drop index "${index.name}"`);
  const step = 2 ** 32 / count;
  const span = 30 * 86_400_000;
  const batchSize = 200_000;
  const batch = db.transaction((from: number, to: number) => {
    const random = randomBytes((to - from) * 44);
    for (let i = from, r = 0; i < to; i++, r += 44) {
      const top = Math.floor(i * step).toString(16).padStart(8, '0');
      const id = (top + random.toString('hex', r, r + 12)).toUpperCase();
      const createdAt = now - 3_600_000 - Math.floor((random.readUInt32BE(r + 12) / 2 ** 32) * span);
      const verified = random[r + 16]! < 205;
      insert({
        ...base, id, destination: phoneOf(FILLER_PHONES + (random.readUInt32BE(r + 20) % 5_000_000)),
        pin_hash: `0000:${random.toString('base64', r + 24, r + 44)}${random.toString('base64', r, r + 12)}`, pin_ciphertext: null,
        attempts_left: verified ? 9 : 10, created_at: createdAt, expires_at: createdAt + 900_000, verified_at: verified ? createdAt + 30_000 : null,
        sent_at: createdAt + 2_000,
      });
      const outboxId = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20, 32)}`.toLowerCase();
      insertOutbox({
        id: outboxId, pin_id: id, account_id: base.account_id, channel: 'sms', request: '{"placeholders":{}}', state: 'done', attempts: 1, next_attempt_at: createdAt,
        lease_until: 0, last_error: null, created_at: createdAt, updated_at: createdAt + 2_000, transport: 'log', provider_message_id: null,
      });
      const eventBase = { pin_id: id, account_id: base.account_id, channel: 'sms', provider_message_id: null, error: null };
      insertEvent({ ...eventBase, id: `${createdAt.toString(36).padStart(9, '0')}-q-${id.slice(0, 12)}`, at: createdAt, event: 'queued', transport: null });
      insertEvent({ ...eventBase, id: `${(createdAt + 2_000).toString(36).padStart(9, '0')}-s-${id.slice(0, 12)}`, at: createdAt + 2_000, event: 'sent', transport: 'log' });
    }
  });
  for (let i = 0; i < count; i += batchSize) {
    batch(i, Math.min(count, i + batchSize));
    if (log && (i / batchSize) % 10 === 9) log(`  filler: ${(i + batchSize).toLocaleString('en')} of ${count.toLocaleString('en')} PINs (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  for (const index of indexes) db.exec(index.sql);
  log?.(`  filler: ${count.toLocaleString('en')} PINs in ${Math.round((Date.now() - started) / 1000)} s (indexes included)`);
}
