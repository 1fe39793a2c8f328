// The risk score's state over the same Kysely database as the rest of the store (shared by every
// node on PostgreSQL): each application's mode and thresholds (configuration, cached), the counters
// the score reads (hits per counter and time bucket: one read and one upsert per send, no scan of
// history), and the decisions recorded with their signals. A send's hits and decision are written
// with its PIN (Store.createPin's `risk`: the PIN's own transaction on SQLite, its one statement on
// PostgreSQL), so scoring a send costs one read and no write of its own.
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { UNCACHED, type ConfigReader } from './config-cache.js';
import { RISK_WRITE } from './postgres/risk-statements.js';

export interface RiskSettingsRow {
  mode: string;
  blockScore: number;
  countryBlockScores: Record<string, number>;
  updatedAt: number;
}

/**
 * A counter read over the buckets that start after `since`. `recent`: a counter only ever read over
 * the recent window (an hour: the distinct numbers of a number's blocks, of a client's address and
 * device, a prefix's verifications), which the store may forget once the window has passed: purge's
 * `recentBefore` (SQLite keeps them in memory, sqlite/risk-statements.ts).
 */
export interface RiskCounterRead {
  counter: string;
  since: number;
  recent?: boolean;
}

/** One hit of a counter in the bucket that starts at `bucketStart`; `recent` as RiskCounterRead's. */
export interface RiskCounterHit {
  counter: string;
  bucketStart: number;
  recent?: boolean;
}

/**
 * What one send, block, resend or verification writes to the score's state: one hit on each counter
 * (distinct counters) and the decision, if it is recorded; all of it or none.
 */
export interface RiskWrite {
  applicationId: string;
  hits: readonly RiskCounterHit[];
  decision?: RiskDecisionRecord;
}

export interface RiskDecisionRecord {
  id: string;
  accountId: string;
  applicationId: string;
  pinId: string | null;
  kind: 'send' | 'resend';
  createdAt: number;
  destination: string;
  country: string | null;
  score: number;
  threshold: number;
  decision: string;
  mode: string;
  safeListed: boolean;
  /** JSON array of the signals. */
  signals: string;
  /**
   * A block's or shadow block's estimated price of the message refused (what the block saved) or sent
   * anyway (what a block would have saved); null without one (no price list, an email, an allowed send).
   */
  price: RiskDecisionPrice | null;
}

export interface RiskDecisionPrice {
  /** Micro-units of `currency`. */
  amountMicros: number;
  currency: string;
}

export interface RiskSavingsQuery {
  applicationId?: string;
  since?: number;
  until?: number;
}

/** Per currency (null: the decisions without a price), the blocks and shadow blocks and their prices summed. */
export interface RiskSavingsRow {
  currency: string | null;
  blockedMicros: number;
  shadowBlockedMicros: number;
  blocks: number;
  shadowBlocks: number;
}

export interface RiskDecisionQuery {
  applicationId?: string;
  country?: string;
  decision?: string;
  since?: number;
  until?: number;
  /** Decisions older than this cursor (createdAt, id) of the previous page's last one. */
  before?: { createdAt: number; id: string };
  limit: number;
}

export interface RiskStore {
  /** The stored settings of an application; undefined: the defaults. */
  getSettings(applicationId: string): Promise<RiskSettingsRow | undefined>;
  putSettings(accountId: string, applicationId: string, settings: Omit<RiskSettingsRow, 'updatedAt'>, now: number): Promise<void>;
  /** The hits of each counter since its `since` (0 for a counter never counted). */
  readCounters(applicationId: string, reads: readonly RiskCounterRead[]): Promise<Map<string, number>>;
  /** `write` in one transaction (a send's is written by Store.createPin, with its PIN). */
  write(write: RiskWrite): Promise<void>;
  /** An account's decisions, newest first. */
  listDecisions(accountId: string, query: RiskDecisionQuery): Promise<RiskDecisionRecord[]>;
  /** An account's blocks and shadow blocks summed per currency of their price (one aggregate query). */
  savings(accountId: string, query: RiskSavingsQuery): Promise<RiskSavingsRow[]>;
  /** The summary of the assessment a PIN was sent under (JSON, pins.risk), if it was scored. */
  summaryOfPin(accountId: string, pinId: string): Promise<string | undefined>;
  /** The newest decision recorded for a PIN, if any. */
  decisionOfPin(accountId: string, pinId: string): Promise<RiskDecisionRecord | undefined>;
  /**
   * Deletes counters in buckets that started before `countersBefore` (those of the recent window
   * before `recentBefore`, where the store keeps them apart) and decisions made before `decisionsBefore`.
   */
  purge(countersBefore: number, decisionsBefore: number, recentBefore: number): Promise<void>;
}

/** SQLite's prepared statements of the score (sqlite/risk-statements.ts), named here by what the store needs of them. */
export interface RiskHotPath {
  read(applicationId: string, reads: readonly RiskCounterRead[]): Map<string, number> | Promise<Map<string, number>>;
  write(write: RiskWrite): void | Promise<void>;
  purge(countersBefore: number, recentBefore: number): void | Promise<void>;
}

type DecisionRow = Database['risk_decisions'];

export function decisionOfRow(r: DecisionRow): RiskDecisionRecord {
  return {
    id: r.id, accountId: r.account_id, applicationId: r.application_id, pinId: r.pin_id, kind: r.kind === 'resend' ? 'resend' : 'send',
    createdAt: Number(r.created_at), destination: r.destination, country: r.country, score: Number(r.score), threshold: Number(r.threshold),
    decision: r.decision, mode: r.mode, safeListed: Number(r.safe_listed) === 1, signals: r.signals,
    price: r.price_micros === null || r.price_currency === null ? null : { amountMicros: Number(r.price_micros), currency: r.price_currency },
  };
}

export function rowOfDecision(d: RiskDecisionRecord): DecisionRow {
  return {
    id: d.id, account_id: d.accountId, application_id: d.applicationId, pin_id: d.pinId, kind: d.kind, created_at: d.createdAt,
    destination: d.destination, country: d.country, score: d.score, threshold: d.threshold, decision: d.decision, mode: d.mode,
    safe_listed: d.safeListed ? 1 : 0, signals: d.signals, price_micros: d.price?.amountMicros ?? null, price_currency: d.price?.currency ?? null,
  };
}

export class KyselyRiskStore implements RiskStore {
  /** `sqlite`: the hot path's prepared statements, on SQLite (the send path does not go through Kysely there). */
  constructor(private readonly db: Kysely<Database>, private readonly config: ConfigReader = UNCACHED, private readonly sqlite?: () => RiskHotPath) {}

  async getSettings(applicationId: string): Promise<RiskSettingsRow | undefined> {
    return this.config.get(`risk:${applicationId}`, async () => {
      const row = await this.db.selectFrom('risk_settings').select(['mode', 'block_score', 'country_block_scores', 'updated_at'])
        .where('application_id', '=', applicationId).executeTakeFirst();
      return row && {
        mode: row.mode, blockScore: Number(row.block_score),
        countryBlockScores: JSON.parse(row.country_block_scores) as Record<string, number>, updatedAt: Number(row.updated_at),
      };
    });
  }

  async putSettings(accountId: string, applicationId: string, settings: Omit<RiskSettingsRow, 'updatedAt'>, now: number): Promise<void> {
    const values = { mode: settings.mode, block_score: settings.blockScore, country_block_scores: JSON.stringify(settings.countryBlockScores), updated_at: now };
    await this.db.insertInto('risk_settings').values({ application_id: applicationId, account_id: accountId, ...values })
      .onConflict((oc) => oc.column('application_id').doUpdateSet(values))
      .execute();
  }

  async readCounters(applicationId: string, reads: readonly RiskCounterRead[]): Promise<Map<string, number>> {
    if (this.sqlite) return this.sqlite().read(applicationId, reads);
    const counts = new Map<string, number>(reads.map((r) => [r.counter, 0]));
    if (reads.length === 0) return counts;
    // One select per window, each an IN on the primary key's (application, counter) prefix: an OR of
    // (counter, since) pairs would scan every counter of the application, one per number it sent to.
    const bySince = new Map<number, string[]>();
    for (const r of reads) bySince.set(r.since, [...(bySince.get(r.since) ?? []), r.counter]);
    const selects = [...bySince].map(([since, counters]) => this.db.selectFrom('risk_counters')
      .select((eb) => ['counter', eb.fn.sum<number>('hits').as('hits')])
      .where('application_id', '=', applicationId).where('counter', 'in', counters).where('bucket_start', '>', since)
      .groupBy('counter'));
    const rows = await selects.slice(1).reduce((union, select) => union.unionAll(select), selects[0]!).execute();
    for (const row of rows) counts.set(row.counter, Number(row.hits));
    return counts;
  }

  async write(write: RiskWrite): Promise<void> {
    if (this.sqlite) return this.sqlite().write(write);
    if (write.hits.length === 0 && !write.decision) return;
    // One statement (one round trip, one transaction), as the PIN's own (postgres/hot-statements.ts).
    await this.db.executeQuery(CompiledQuery.raw(RISK_WRITE, [...riskWriteParameters(write)]));
  }

  async listDecisions(accountId: string, q: RiskDecisionQuery): Promise<RiskDecisionRecord[]> {
    let query = this.db.selectFrom('risk_decisions').selectAll().where('account_id', '=', accountId);
    if (q.applicationId !== undefined) query = query.where('application_id', '=', q.applicationId);
    if (q.country !== undefined) query = query.where('country', '=', q.country);
    if (q.decision !== undefined) query = query.where('decision', '=', q.decision);
    if (q.since !== undefined) query = query.where('created_at', '>=', q.since);
    if (q.until !== undefined) query = query.where('created_at', '<', q.until);
    const before = q.before;
    if (before) {
      query = query.where((eb) => eb.or([eb('created_at', '<', before.createdAt), eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)])]));
    }
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
    return rows.map(decisionOfRow);
  }

  async savings(accountId: string, q: RiskSavingsQuery): Promise<RiskSavingsRow[]> {
    // On risk_decisions_account_time (account_id, created_at): the account's range, never the table.
    let query = this.db.selectFrom('risk_decisions')
      .select((eb) => [
        'price_currency',
        eb.fn.sum<number | string | null>(eb.case().when('decision', '=', 'block').then(eb.ref('price_micros')).else(eb.lit(0)).end()).as('blocked_micros'),
        eb.fn.sum<number | string | null>(eb.case().when('decision', '=', 'shadow_block').then(eb.ref('price_micros')).else(eb.lit(0)).end()).as('shadow_blocked_micros'),
        eb.fn.sum<number | string>(eb.case().when('decision', '=', 'block').then(eb.lit(1)).else(eb.lit(0)).end()).as('blocks'),
        eb.fn.sum<number | string>(eb.case().when('decision', '=', 'shadow_block').then(eb.lit(1)).else(eb.lit(0)).end()).as('shadow_blocks'),
      ])
      .where('account_id', '=', accountId).where('decision', 'in', ['block', 'shadow_block']);
    if (q.applicationId !== undefined) query = query.where('application_id', '=', q.applicationId);
    if (q.since !== undefined) query = query.where('created_at', '>=', q.since);
    if (q.until !== undefined) query = query.where('created_at', '<', q.until);
    const rows = await query.groupBy('price_currency').execute();
    return rows.map((r) => ({
      currency: r.price_currency, blockedMicros: Number(r.blocked_micros ?? 0), shadowBlockedMicros: Number(r.shadow_blocked_micros ?? 0),
      blocks: Number(r.blocks), shadowBlocks: Number(r.shadow_blocks),
    }));
  }

  async summaryOfPin(accountId: string, pinId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('pins').select('risk').where('id', '=', pinId).where('account_id', '=', accountId).executeTakeFirst();
    return row?.risk ?? undefined;
  }

  async decisionOfPin(accountId: string, pinId: string): Promise<RiskDecisionRecord | undefined> {
    const row = await this.db.selectFrom('risk_decisions').selectAll().where('pin_id', '=', pinId).where('account_id', '=', accountId)
      .orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
    return row && decisionOfRow(row);
  }

  async purge(countersBefore: number, decisionsBefore: number, recentBefore: number): Promise<void> {
    if (this.sqlite) await this.sqlite().purge(countersBefore, recentBefore);
    else await this.db.deleteFrom('risk_counters').where('bucket_start', '<', countersBefore).execute();
    await this.db.deleteFrom('risk_decisions').where('created_at', '<', decisionsBefore).execute();
  }
}

/**
 * The parameters of postgres/risk-statements.ts's CTEs: the application, the counters and their
 * buckets in one order for every statement (by name: two sends sharing counters never deadlock on
 * their rows), and the decision's row as JSON (null: none).
 */
export function riskWriteParameters(write: RiskWrite | undefined): readonly [string | null, string[], number[], string | null] {
  if (!write) return [null, [], [], null];
  const hits = [...write.hits].sort((a, b) => (a.counter < b.counter ? -1 : a.counter > b.counter ? 1 : a.bucketStart - b.bucketStart));
  return [write.applicationId, hits.map((h) => h.counter), hits.map((h) => h.bucketStart), write.decision ? JSON.stringify(rowOfDecision(write.decision)) : null];
}
