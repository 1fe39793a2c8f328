// The console's queries: a searchable, paged list of PINs, statistics aggregated in the database, and
// the API keys of one account. Every query is bounded by the account that asks.
// Portable across SQLite and PostgreSQL: integer division of epoch milliseconds buckets times, window
// functions rank latencies (both have them), and counts come back as numbers or numeric strings.
import type { PinState } from '../domain/pin-lifecycle.js';
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';
import type { Channel, DeliveryStatus } from '../domain/channels.js';

export type PinStateFilter = PinState;

export interface PinListQuery {
  /** Part of the destination (digits of a phone number, or part of an email address). */
  destination?: string;
  applicationId?: string;
  channel?: Channel;
  state?: PinStateFilter;
  /** Created at or after (epoch ms). */
  since?: number;
  /** Created before (epoch ms). */
  until?: number;
  /** Continue after this PIN (its creation time and id), newest first. */
  after?: { createdAt: number; id: string };
  limit: number;
}

export interface PinListRow {
  id: string;
  applicationId: string;
  applicationName: string | null;
  messageId: string;
  channel: Channel;
  destination: string;
  country: string | null;
  attemptsLeft: number;
  createdAt: number;
  expiresAt: number;
  verifiedAt: number | null;
  lockedAt: number | null;
  deliveryStatus: DeliveryStatus;
  sentAt: number | null;
  deliveredAt: number | null;
  sendCount: number;
  testNumber: boolean;
  /** The API the PIN was asked for through: Infobip's 2FA API (`/2fa/2`, `/api/v1`) or Twilio Verify (`/v2`). */
  dialect: 'infobip' | 'twilio';
}

export interface StatsRange {
  from: number;
  to: number;
  /** Bucket width: one hour or one day (UTC). */
  bucketMs: number;
}

export interface StatsPoint {
  start: number;
  channel: Channel;
  sends: number;
  deliveries: number;
  verifications: number;
}

export interface ConversionRow {
  sent: number;
  verified: number;
}

export interface LatencyRow {
  channel: Channel;
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface BlockedRow {
  /** The audit event, e.g. pin.send.refused, pin.verify.refused. */
  event: string;
  /** Why: the limit (send:to, send:app, verifyPinLimit) or the anti-fraud guard that refused it. */
  reason: string | null;
  count: number;
}

export interface AccountStats {
  series: StatsPoint[];
  byChannel: Array<ConversionRow & { channel: Channel }>;
  byCountry: Array<ConversionRow & { country: string | null }>;
  latency: LatencyRow[];
  blocked: BlockedRow[];
  /** PINs sent to test numbers in the range, counted apart: every other figure leaves them out. */
  testNumbers: ConversionRow;
  /** The account's messages waiting for delivery now (whatever the range), and when the oldest was accepted. */
  queue: { pending: number; oldestAcceptedAt: number | null };
}

export interface AccountApiKey {
  id: string;
  accountName: string;
  keyPrefix: string;
  scopes: string[];
  label: string | null;
  createdAt: number;
  revokedAt: number | null;
}

export interface ConsoleStore {
  /** The account's name, or undefined when there is no such account. */
  accountName(accountId: string): Promise<string | undefined>;
  /** One key of the account (revoked ones too). */
  getApiKey(accountId: string, keyId: string): Promise<AccountApiKey | undefined>;
  /** The account's keys, oldest first, revoked ones too. */
  listApiKeys(accountId: string): Promise<AccountApiKey[]>;
  /** Revokes a key of the account: 'missing' when the account has no key with that id. */
  revokeApiKey(accountId: string, keyId: string, now: number): Promise<'revoked' | 'already-revoked' | 'missing'>;
  /** PINs of the account, newest first; `limit + 1` rows at most are read, so the caller can tell whether more follow. */
  listPins(accountId: string, query: PinListQuery, now: number): Promise<PinListRow[]>;
  /** Sends, deliveries and verifications over time, conversion, delivery latency and refusals, all counted by the database. */
  stats(accountId: string, range: StatsRange): Promise<AccountStats>;
}

const num = (value: unknown): number => Number(value ?? 0);
const nullableNum = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** LIKE pattern matching `text` anywhere, with LIKE's own wildcards taken literally. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

export class KyselyConsoleStore implements ConsoleStore {
  constructor(private readonly db: Kysely<Database>) {}

  async accountName(accountId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('accounts').select('name').where('id', '=', accountId).executeTakeFirst();
    return row?.name;
  }

  private keys() {
    return this.db.selectFrom('api_keys').innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select(['api_keys.id', 'accounts.name as account_name', 'api_keys.key_prefix', 'api_keys.scopes', 'api_keys.label', 'api_keys.created_at', 'api_keys.revoked_at']);
  }

  async getApiKey(accountId: string, keyId: string): Promise<AccountApiKey | undefined> {
    const row = await this.keys().where('api_keys.account_id', '=', accountId).where('api_keys.id', '=', keyId).executeTakeFirst();
    return row && toKey(row);
  }

  async listApiKeys(accountId: string): Promise<AccountApiKey[]> {
    const rows = await this.keys().where('api_keys.account_id', '=', accountId).orderBy('api_keys.created_at').orderBy('api_keys.id').execute();
    return rows.map(toKey);
  }

  async revokeApiKey(accountId: string, keyId: string, now: number): Promise<'revoked' | 'already-revoked' | 'missing'> {
    const result = await this.db.updateTable('api_keys').set({ revoked_at: now })
      .where('account_id', '=', accountId).where('id', '=', keyId).where('revoked_at', 'is', null).executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) return 'revoked';
    const existing = await this.db.selectFrom('api_keys').select('id').where('account_id', '=', accountId).where('id', '=', keyId).executeTakeFirst();
    return existing ? 'already-revoked' : 'missing';
  }

  async listPins(accountId: string, query: PinListQuery, now: number): Promise<PinListRow[]> {
    let q = this.db.selectFrom('pins').leftJoin('applications', 'applications.id', 'pins.application_id')
      .leftJoin('twilio_verifications', 'twilio_verifications.pin_id', 'pins.id')
      .select([
        'pins.id', 'pins.application_id', 'applications.name as application_name', 'pins.message_id', 'pins.channel', 'pins.destination',
        'pins.country', 'pins.attempts_left', 'pins.created_at', 'pins.expires_at', 'pins.verified_at', 'pins.locked_at',
        'pins.delivery_status', 'pins.sent_at', 'pins.delivered_at', 'pins.send_count', 'pins.test_number',
        'twilio_verifications.pin_id as twilio_pin_id',
      ])
      .where('pins.account_id', '=', accountId);
    if (query.destination !== undefined && query.destination !== '') {
      // Case-insensitive for email addresses; phone numbers are digits either way.
      q = q.where(sql<boolean>`lower(${sql.ref('pins.destination')}) like ${containsPattern(query.destination.toLowerCase())} escape '\\'`);
    }
    if (query.applicationId !== undefined) q = q.where('pins.application_id', '=', query.applicationId);
    if (query.channel !== undefined) q = q.where('pins.channel', '=', query.channel);
    if (query.since !== undefined) q = q.where('pins.created_at', '>=', query.since);
    if (query.until !== undefined) q = q.where('pins.created_at', '<', query.until);
    switch (query.state) {
      case 'verified':
        q = q.where('pins.verified_at', 'is not', null);
        break;
      case 'locked':
        q = q.where('pins.verified_at', 'is', null).where((eb) => eb.or([eb('pins.locked_at', 'is not', null), eb('pins.attempts_left', '=', 0)]));
        break;
      case 'expired':
        q = q.where('pins.verified_at', 'is', null).where('pins.locked_at', 'is', null).where('pins.attempts_left', '>', 0).where('pins.expires_at', '<=', now);
        break;
      case 'pending':
        q = q.where('pins.verified_at', 'is', null).where('pins.locked_at', 'is', null).where('pins.attempts_left', '>', 0).where('pins.expires_at', '>', now);
        break;
      default:
        break;
    }
    const after = query.after;
    if (after) {
      q = q.where((eb) => eb.or([
        eb('pins.created_at', '<', after.createdAt),
        eb.and([eb('pins.created_at', '=', after.createdAt), eb('pins.id', '<', after.id)]),
      ]));
    }
    const rows = await q.orderBy('pins.created_at', 'desc').orderBy('pins.id', 'desc').limit(query.limit + 1).execute();
    return rows.map((r) => ({
      id: r.id, applicationId: r.application_id, applicationName: r.application_name ?? null, messageId: r.message_id, channel: r.channel,
      destination: r.destination, country: r.country, attemptsLeft: r.attempts_left, createdAt: num(r.created_at), expiresAt: num(r.expires_at),
      verifiedAt: nullableNum(r.verified_at), lockedAt: nullableNum(r.locked_at), deliveryStatus: r.delivery_status as DeliveryStatus,
      sentAt: nullableNum(r.sent_at), deliveredAt: nullableNum(r.delivered_at), sendCount: r.send_count, testNumber: num(r.test_number) === 1,
      dialect: r.twilio_pin_id === null ? 'infobip' : 'twilio',
    }));
  }

  /** Counts per (bucket of `column`, channel) of the account's PINs whose `column` falls in the range. */
  private async countByBucket(accountId: string, column: 'created_at' | 'sent_at' | 'verified_at', range: StatsRange): Promise<Map<string, number>> {
    // The width is a literal (one of two validated constants), so that PostgreSQL sees the same
    // expression in the select list and the GROUP BY.
    const bucket = sql<number>`(${sql.ref(column)} / ${sql.lit(range.bucketMs)}) * ${sql.lit(range.bucketMs)}`;
    const rows = await this.db.selectFrom('pins')
      .select([bucket.as('bucket'), 'channel', (eb) => eb.fn.countAll<number>().as('n')])
      .where('account_id', '=', accountId).where(column, '>=', range.from).where(column, '<', range.to).where('test_number', '=', 0)
      .groupBy([bucket, 'channel'])
      .execute();
    return new Map(rows.map((r) => [`${num(r.bucket)}|${r.channel}`, num(r.n)]));
  }

  async stats(accountId: string, range: StatsRange): Promise<AccountStats> {
    const [sends, deliveries, verifications] = await Promise.all([
      this.countByBucket(accountId, 'created_at', range),
      this.countByBucket(accountId, 'sent_at', range),
      this.countByBucket(accountId, 'verified_at', range),
    ]);
    const keys = new Set([...sends.keys(), ...deliveries.keys(), ...verifications.keys()]);
    const series = [...keys].map((key) => {
      const [start, channel] = key.split('|') as [string, Channel];
      return { start: Number(start), channel, sends: sends.get(key) ?? 0, deliveries: deliveries.get(key) ?? 0, verifications: verifications.get(key) ?? 0 };
    }).sort((a, b) => a.start - b.start || a.channel.localeCompare(b.channel));

    // Conversion of the PINs created in the range: how many of them were verified. PINs sent to test
    // numbers are verified by scripts and reviewers, not users: counted apart, they never skew it.
    const createdAny = (q: SelectQueryBuilder<Database, 'pins', object>) => q.where('account_id', '=', accountId).where('created_at', '>=', range.from).where('created_at', '<', range.to);
    const created = (q: SelectQueryBuilder<Database, 'pins', object>) => createdAny(q).where('test_number', '=', 0);
    const testRow = await createdAny(this.db.selectFrom('pins')).where('test_number', '=', 1)
      .select([(eb) => eb.fn.countAll<number>().as('sent'), (eb) => eb.fn.count<number>('verified_at').as('verified')]).executeTakeFirst();
    const byChannelRows = await created(this.db.selectFrom('pins'))
      .select(['channel', (eb) => eb.fn.countAll<number>().as('sent'), (eb) => eb.fn.count<number>('verified_at').as('verified')])
      .groupBy('channel').orderBy('channel').execute();
    const byCountryRows = await created(this.db.selectFrom('pins')).where('channel', '!=', 'email')
      .select(['country', (eb) => eb.fn.countAll<number>().as('sent'), (eb) => eb.fn.count<number>('verified_at').as('verified')])
      .groupBy('country').execute();

    // Nearest-rank percentiles of sent_at - created_at per channel: rank each PIN's latency within its
    // channel and keep the ranks ceil(p * n), written as integer arithmetic both databases share.
    const latency = sql<number>`(${sql.ref('sent_at')} - ${sql.ref('created_at')})`;
    const ranked = this.db.selectFrom('pins')
      .select([
        'channel', latency.as('latency'),
        sql<number>`row_number() over (partition by ${sql.ref('channel')} order by ${latency})`.as('rank'),
        sql<number>`count(*) over (partition by ${sql.ref('channel')})`.as('total'),
      ])
      .where('account_id', '=', accountId).where('created_at', '>=', range.from).where('created_at', '<', range.to).where('sent_at', 'is not', null)
      .where('test_number', '=', 0)
      .as('ranked');
    const latencyRows = await this.db.selectFrom(ranked)
      .select(['ranked.channel', 'ranked.latency', 'ranked.rank', 'ranked.total'])
      .where((eb) => eb.or([
        eb(sql`${sql.ref('ranked.rank')}`, '=', sql`(50 * ${sql.ref('ranked.total')} + 99) / 100`),
        eb(sql`${sql.ref('ranked.rank')}`, '=', sql`(90 * ${sql.ref('ranked.total')} + 99) / 100`),
        eb(sql`${sql.ref('ranked.rank')}`, '=', sql`(99 * ${sql.ref('ranked.total')} + 99) / 100`),
        eb(sql`${sql.ref('ranked.rank')}`, '=', sql.ref('ranked.total')),
      ]))
      .execute();
    const latencyByChannel = new Map<Channel, LatencyRow>();
    for (const row of latencyRows) {
      const channel = row.channel;
      const total = num(row.total);
      const rank = num(row.rank);
      const value = num(row.latency);
      const entry = latencyByChannel.get(channel) ?? { channel, count: total, p50: 0, p90: 0, p99: 0, max: 0 };
      if (rank === Math.ceil((50 * total) / 100)) entry.p50 = value;
      if (rank === Math.ceil((90 * total) / 100)) entry.p90 = value;
      if (rank === Math.ceil((99 * total) / 100)) entry.p99 = value;
      if (rank === total) entry.max = value;
      latencyByChannel.set(channel, entry);
    }

    // Refused requests, as the audit log recorded them (`*.refused` entries), by what and why.
    const blockedRows = await this.db.selectFrom('audit_log')
      .select(['event', 'reason', (eb) => eb.fn.countAll<number>().as('n')])
      .where('account_id', '=', accountId).where('at', '>=', range.from).where('at', '<', range.to).where('event', 'like', '%.refused')
      .groupBy(['event', 'reason']).execute();

    // What waits for delivery now: first messages on their PINs, later ones in the outbox.
    const pendingOwn = await this.db.selectFrom('pins').where('account_id', '=', accountId).where('message_state', '=', sql.lit('pending'))
      .select([(eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.min('message_queued_at').as('oldest')]).executeTakeFirst();
    const pendingLater = await this.db.selectFrom('outbox').where('account_id', '=', accountId).where('state', '=', 'pending')
      .select([(eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.min('created_at').as('oldest')]).executeTakeFirst();
    const oldest = [pendingOwn?.oldest, pendingLater?.oldest].filter((at) => at !== null && at !== undefined).map(Number);

    return {
      queue: { pending: num(pendingOwn?.n) + num(pendingLater?.n), oldestAcceptedAt: oldest.length === 0 ? null : Math.min(...oldest) },
      blocked: blockedRows.map((r) => ({ event: r.event, reason: r.reason, count: num(r.n) }))
        .sort((a, b) => b.count - a.count || a.event.localeCompare(b.event) || String(a.reason).localeCompare(String(b.reason))),
      series,
      byChannel: byChannelRows.map((r) => ({ channel: r.channel, sent: num(r.sent), verified: num(r.verified) })),
      byCountry: byCountryRows.map((r) => ({ country: r.country, sent: num(r.sent), verified: num(r.verified) }))
        .sort((a, b) => b.sent - a.sent || String(a.country).localeCompare(String(b.country))),
      latency: [...latencyByChannel.values()].sort((a, b) => a.channel.localeCompare(b.channel)),
      testNumbers: { sent: num(testRow?.sent), verified: num(testRow?.verified) },
    };
  }
}

function toKey(row: { id: string; account_name: string; key_prefix: string; scopes: string; label: string | null; created_at: number; revoked_at: number | null }): AccountApiKey {
  return {
    id: row.id, accountName: row.account_name, keyPrefix: row.key_prefix, scopes: row.scopes.split(' ').filter((s) => s.length > 0),
    label: row.label, createdAt: Number(row.created_at), revokedAt: nullableNum(row.revoked_at),
  };
}
