// The PostgreSQL write path of send and verify: each request is one statement, so one round trip and
// one implicit transaction, with no advisory lock. Rate limits are counted by an upsert of the key's
// current bucket, which takes that row's lock: concurrent requests on a key queue on it (from any
// node) only for the rest of the statement and its commit, not for a transaction of several round
// trips. The window's total is the upserted bucket's new count plus the older buckets (which nobody
// writes any more); a total over the limit calls twofa_rate_limited() (migration 0018), whose error
// aborts the statement and so undoes every count and write it made: a refused request consumes
// nothing, on any key, and writes nothing.
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { bucketExpiryOf, bucketStartOf } from '../rate-limiter.js';
import { PIN_RECORD_COLUMNS, type Database, type PinRecordRow } from '../schema.js';
import type { BudgetCharge } from '../../domain/budgets.js';
import type { RateLimitCheck } from '../store.js';
import type { MessagePriceInput } from '../price-store.js';
import { commitModeColumn } from './deferred-flushes.js';
import { named } from './named-statements.js';
import { RISK_WRITE_OUTPUT, riskWriteCtes } from './risk-statements.js';

type Db = Kysely<Database> | Transaction<Database>;

/** SQLSTATE raised by twofa_rate_limited() (created by migration 0018, which holds this code literally). */
export const RATE_LIMITED_SQLSTATE = 'TF429';

/** Thrown when a statement was refused by a rate limit; everything it did was rolled back. */
export class RateLimitRefusal extends Error {
  constructor() {
    super('rate limit reached');
  }
}

export function isRateLimitError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === RATE_LIMITED_SQLSTATE;
}

/** SQLSTATE raised by twofa_budget_exceeded() (created by migration 0032, which holds this code literally). */
export const BUDGET_EXCEEDED_SQLSTATE = 'TF402';

/** Thrown when a statement was refused by a budget cap; everything it did was rolled back. */
export class BudgetRefusal extends Error {
  constructor() {
    super('budget exceeded');
  }
}

function isBudgetError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === BUDGET_EXCEEDED_SQLSTATE;
}

/** Five parameters from `n`: the budget charges as arrays, keys in one order for every request (as limitParameters). */
function budgetParameters(charges: readonly BudgetCharge[]): unknown[] {
  const sorted = [...charges].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return [sorted.map((c) => c.key), sorted.map((c) => c.periodStart), sorted.map((c) => c.amount), sorted.map((c) => c.cap), sorted.map((c) => c.expiresAt)];
}

/**
 * CTEs `spend` and `over_budget` over parameters $n..$n+4 (budgetParameters): each charge is added to
 * its period's counter by an upsert, which takes the counter row's lock, so concurrent sends on one
 * budget (from any node) add up one after the other, each seeing the spend before it; a counter over
 * its cap makes the outer query call twofa_budget_exceeded(), whose error undoes the whole
 * statement: the PIN, the limits' hits and every charge.
 */
function budgetCte(n: number): string {
  return `
  budget_input as (
    select * from unnest($${n}::text[], $${n + 1}::bigint[], $${n + 2}::bigint[], $${n + 3}::bigint[], $${n + 4}::bigint[]) as b(key, period_start, amount, cap, expires_at)
  ),
  spend as (
    insert into budget_spend as s (key, period_start, spent, expires_at)
    select key, period_start, amount, expires_at from budget_input order by key desc
    on conflict (key, period_start) do update set spent = s.spent + excluded.spent
    returning s.key, s.spent
  ),
  over_budget as (select b.key from budget_input b join spend s on s.key = b.key where s.spent > b.cap)`;
}

/** Evaluated by the outer query so that a crossing aborts the statement; and each counter's spend after the send. */
const BUDGET_OUTPUT = '(select count(twofa_budget_exceeded()) from over_budget) as over_budget, (select json_agg(json_build_array(key, spent)) from spend) as budget_spent';

/** Each counter's spend after the statement, by key (JSON [key, spent] rows). */
export type BudgetSpent = Record<string, number>;

function budgetSpentOf(rows: [string, number | string][] | null | undefined): BudgetSpent {
  const spent: BudgetSpent = {};
  for (const [key, value] of rows ?? []) spent[key] = Number(value);
  return spent;
}

const CONSUME_BUDGETS = named(`with ${budgetCte(1)} select ${BUDGET_OUTPUT}`);

/** Counts budget charges in one statement (a resend's, in its transaction); throws BudgetRefusal (the statement undone). */
export async function consumeBudgets(db: Db, charges: readonly BudgetCharge[]): Promise<BudgetSpent> {
  if (charges.length === 0) return {};
  const rows = await run<{ budget_spent: [string, number][] | null }>(db, CONSUME_BUDGETS, budgetParameters(charges));
  return budgetSpentOf(rows[0]?.budget_spent);
}

/** The first six parameters of every statement below: the limits, as arrays, and the time. */
function limitParameters(limits: RateLimitCheck[], now: number): unknown[] {
  // Keys in one order for every request (the statement locks them in its own order, LIMITS_CTE).
  const sorted = [...limits].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return [
    sorted.map((l) => l.key), sorted.map((l) => bucketStartOf(now, l.windowMs)), sorted.map((l) => now - l.windowMs),
    sorted.map((l) => bucketExpiryOf(now, l.windowMs)), sorted.map((l) => l.limit), now,
  ];
}

/**
 * CTEs `hit` and `refused` over parameters $1..$6 (limitParameters). The buckets are upserted in
 * descending key order: one order for every request (two requests sharing keys never deadlock), and
 * in it the application-wide keys (`send:app:`) come after those of one destination (`send:to:`),
 * so the row every send of an application waits for is locked last and held the shortest.
 */
const LIMITS_CTE = `
  input as (
    select * from unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::int[]) as i(key, bucket_start, since, expires_at, lim)
  ),
  hit as (
    insert into rate_limit_buckets as b (key, bucket_start, hits, last_at, expires_at)
    select key, bucket_start, 1, $6::bigint, expires_at from input order by key desc
    on conflict (key, bucket_start) do update set hits = b.hits + 1, last_at = excluded.last_at
    returning b.key, b.bucket_start, b.hits
  ),
  refused as (
    select i.key from input i join hit h on h.key = i.key and h.bucket_start = i.bucket_start
    where h.hits + coalesce((select sum(o.hits) from rate_limit_buckets o
      where o.key = i.key and o.last_at > i.since and o.bucket_start <> i.bucket_start), 0) > i.lim
  ),
  window_buckets as (
    select i.key, o.hits, o.last_at from input i join rate_limit_buckets o on o.key = i.key and o.last_at > i.since and o.bucket_start <> i.bucket_start
    union all
    select h.key, h.hits, $6::bigint from hit h
  )`;

/**
 * Each limit's window after the hit, as JSON [key, hits, last_at] rows (the statement's own upsert
 * is only visible through what it returns, so the current bucket comes from `hit`): when the next
 * hit fits is computed from them without reading the buckets again.
 */
const WINDOW_OUTPUT = '(select json_agg(json_build_array(key, hits, last_at) order by last_at) from window_buckets) as buckets';

/** The buckets of each key's window after the hit, oldest hit first. */
export type WindowBuckets = Map<string, { hits: number; lastAt: number }[]>;

function windowBucketsOf(rows: [string, number, number][] | null | undefined): WindowBuckets {
  const byKey: WindowBuckets = new Map();
  for (const [key, hits, lastAt] of rows ?? []) {
    let list = byKey.get(key);
    if (!list) byKey.set(key, (list = []));
    list.push({ hits: Number(hits), lastAt: Number(lastAt) });
  }
  return byKey;
}

/** Evaluated by the outer query so that a refusal aborts the statement. */
const REFUSAL_CHECK = '(select count(twofa_rate_limited()) from refused)';

const CONSUME = named(`with ${LIMITS_CTE} select ${REFUSAL_CHECK} as refused, ${WINDOW_OUTPUT}`);

/** Counts the limits; throws RateLimitRefusal (the statement undone) when one refuses. Returns each window after the hit. */
export async function consumeLimits(db: Db, limits: RateLimitCheck[], now: number): Promise<WindowBuckets> {
  if (limits.length === 0) return new Map();
  const rows = await run<{ buckets: [string, number, number][] | null }>(db, CONSUME, limitParameters(limits, now));
  return windowBucketsOf(rows[0]?.buckets);
}

export interface PinInsert {
  id: string; accountId: string; applicationId: string; messageId: string; channel: string; destination: string; pinHash: string;
  pinCiphertext: string | null; attemptsLeft: number; allowMultipleVerifications: boolean; createdAt: number; expiresAt: number;
  deliveryStatus: string; country: string | null; testNumber: boolean; risk: string | null;
}

/** risk-store.ts's riskWriteParameters of the send (the four of risk-statements.ts's CTEs). */
export type RiskWriteParameters = readonly [string | null, string[], number[], string | null];

export interface OutboxInsert {
  id: string;
  request: string;
}

// The PIN with its first message on its own row (its `queued` history entry is read from the
// message's columns) and the NOTIFY that wakes every node's worker (delivered only if the statement
// commits). The select list's subqueries run in their order: the PIN is inserted before the limits
// are counted, so the application's bucket, which every send locks, is held only from its upsert to
// the commit (a refusal still undoes the insert with everything else). The kysely-store commits it
// asynchronously (`commit_mode`, deferred-flushes.ts), so that hold does not include the WAL flush.
// The risk score's hits and decision of the send ($26..$29, risk-statements.ts; the PIN's summary of
// it is $30) are written by the same statement: undone with it when a limit refuses it, and no round
// trip of their own. With budget charges ($31..$35), the budgets' counters are counted after the
// limits (the order of the select list, and the order a resend's transaction counts them in too: no
// two sends lock them the other way round), so a budget's row is held from its upsert to the commit
// only. Without, the statement has no budget part at all: a deployment without prices pays nothing for them.
const createPinStatement = (withBudget: boolean) => named(`with ${LIMITS_CTE},${withBudget ? ` ${budgetCte(31)},` : ''}
  pin as (
    insert into pins (id, account_id, application_id, message_id, channel, destination, pin_hash, pin_ciphertext, attempts_left,
      allow_multiple_verifications, created_at, expires_at, verified_at, locked_at, delivery_status, delivery_error, sent_at, send_count,
      delivery_transport, provider_message_id, delivered_at, country, test_number, risk,
      delivery_id, message_state, message_request, message_attempts, message_due_at, message_lease_until, message_queued_at)
    values ($7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, null, null, $19, null, null, 1, null, null, null, $20, $24, $30,
      $21::text, case when $21::text is null then null else 'pending' end, $22, 0,
      case when $21::text is null then null else $6::bigint end, 0, case when $21::text is null then null else $6::bigint end)
    returning id
  ),
  woken as (select pg_notify($23, '') from pin where $21::text is not null),
  ${riskWriteCtes(26)}
select (select count(*) from woken) as woken, ${REFUSAL_CHECK} as refused, ${WINDOW_OUTPUT},${withBudget ? ` ${BUDGET_OUTPUT},` : ''} ${commitModeColumn(25)}, ${RISK_WRITE_OUTPUT}`);
const CREATE_PIN = createPinStatement(false);
const CREATE_PIN_WITH_BUDGET = createPinStatement(true);

/**
 * Inserts a PIN and its message within its limits and budget caps, in one statement; throws
 * RateLimitRefusal or BudgetRefusal. Returns each limit's window after the hit and each budget
 * counter's spend. `deferFlush`: commits without waiting for the WAL flush (deferred-flushes.ts).
 */
export async function createPin(db: Db, limits: RateLimitCheck[], now: number, pin: PinInsert, outbox: OutboxInsert | undefined, channel: string, deferFlush: boolean, risk: RiskWriteParameters, budget: readonly BudgetCharge[] = []): Promise<{ windows: WindowBuckets; budgetSpent: BudgetSpent }> {
  const rows = await run<{ buckets: [string, number, number][] | null; budget_spent?: [string, number][] | null }>(db, budget.length > 0 ? CREATE_PIN_WITH_BUDGET : CREATE_PIN, [
    ...limitParameters(limits, now),
    pin.id, pin.accountId, pin.applicationId, pin.messageId, pin.channel, pin.destination, pin.pinHash, pin.pinCiphertext, pin.attemptsLeft,
    pin.allowMultipleVerifications ? 1 : 0, pin.createdAt, pin.expiresAt, pin.deliveryStatus, pin.country,
    outbox?.id ?? null, outbox?.request ?? null, channel, pin.testNumber ? 1 : 0, deferFlush, ...risk, pin.risk, ...(budget.length > 0 ? budgetParameters(budget) : []),
  ]);
  return { windows: windowBucketsOf(rows[0]?.buckets), budgetSpent: budgetSpentOf(rows[0]?.budget_spent) };
}

// Race gate: the attempt is counted (a conditional UPDATE ... RETURNING of a live PIN) in the same
// statement as the verifyPinLimit count, before the PIN is compared.
const COUNT_ATTEMPT = named(`with ${LIMITS_CTE},
  attempt as (
    update pins set attempts_left = attempts_left - 1
    where id = $7 and attempts_left > 0 and expires_at > $6::bigint and locked_at is null
      and (verified_at is null or allow_multiple_verifications = 1)
    returning ${PIN_RECORD_COLUMNS.join(', ')}
  )
select ${REFUSAL_CHECK} as refused, attempt.* from (select 1) as one left join attempt on true`);

/** Counts a verification attempt within its limits; the PIN as after it, or undefined if no attempt could be counted. */
export async function countAttempt(db: Db, limits: RateLimitCheck[], now: number, pinId: string): Promise<PinRecordRow | undefined> {
  const rows = await run<PinRecordRow | { id: null }>(db, COUNT_ATTEMPT, [...limitParameters(limits, now), pinId]);
  const row = rows[0];
  return row && row.id !== null ? row as PinRecordRow : undefined;
}

// An API key with the configuration counter (postgres/config-version.ts) in one round trip: the one
// configuration read of a request that never comes from the cache. One row even for an unknown key.
const API_KEY_WITH_CONFIG_VERSION = named(`select k.id, k.account_id, a.name as account_name, k.key_prefix, k.scopes, k.label, k.created_at, k.revoked_at,
    v.version as config_version
  from config_version v left join (api_keys k join accounts a on a.id = k.account_id) on k.key_hash = $1
  where v.id = 1`);

export async function apiKeyWithConfigVersion<Row>(db: Db, keyHash: string): Promise<{ key: Row | undefined; configVersion: number }> {
  const row = (await run<Row & { id: string | null; config_version: number }>(db, API_KEY_WITH_CONFIG_VERSION, [keyHash]))[0];
  if (!row) throw new Error('config_version has no row (migration 0023)');
  return { key: row.id === null ? undefined : row, configVersion: Number(row.config_version) };
}

export interface CompletedMessage {
  id: string;
  pinId: string;
  now: number;
  transport: string | null;
  providerMessageId: string | null;
  eventId: string;
  /** What it cost (store/price-store.ts), recorded with it; absent: nothing to record (no transport, or a worker without prices). */
  price?: MessagePriceInput | undefined;
}

// Messages handed over, for the whole batch in one statement: a PIN's first message done on the
// PIN's row (its `sent` entry is read from there), a later message's outbox row done with a "sent"
// history row, and each PIN sent (by the last of its messages in the batch).
const COMPLETE_MESSAGES = named(`with
  input as (
    select * from unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[]) as i(id, at, transport, provider_message_id, event_id)
  ),
  done as (
    update outbox o set state = 'done', updated_at = i.at, last_error = null, transport = i.transport, provider_message_id = i.provider_message_id
    from input i where o.id = i.id
    returning o.id, o.pin_id, o.account_id, o.channel
  ),
  pin_input as (
    select * from unnest($6::text[], $7::bigint[], $8::text[], $9::text[]) as p(pin_id, at, transport, provider_message_id)
  ),
  sent as (
    update pins set delivery_status = 'sent', delivery_error = null, sent_at = coalesce(pins.sent_at, p.at),
      delivery_transport = p.transport, provider_message_id = p.provider_message_id,
      message_state = case when o.id is null then pins.message_state else 'done' end,
      message_error = case when o.id is null then pins.message_error end,
      message_sent_at = case when o.id is null then pins.message_sent_at else o.at end,
      message_transport = case when o.id is null then pins.message_transport else o.transport end,
      message_provider_id = case when o.id is null then pins.message_provider_id else o.provider_message_id end,
      message_sent_event = case when o.id is null then pins.message_sent_event else o.event_id end
    from pin_input p left join input o on o.id = (select x.delivery_id from pins x where x.id = p.pin_id)
    where pins.id = p.pin_id
    returning pins.id
  ),
  history as (
    insert into delivery_events (id, pin_id, account_id, at, event, channel, transport, provider_message_id, error)
    select i.event_id, d.pin_id, d.account_id, i.at, 'sent', d.channel, i.transport, i.provider_message_id, null
    from input i join done d on d.id = i.id
    returning id
  ),
  price_input as (
    select * from unnest($10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::int[], $16::bigint[], $17::text[], $18::text[], $19::text[])
      as c(id, pin_id, channel, country, prefix, segments, amount, currency, source, transport)
  ),
  priced as (
    insert into message_prices (delivery_id, pin_id, account_id, application_id, channel, transport, country, prefix, at, segments, amount, currency, source, provider_message_id)
    select c.id, x.id, x.account_id, x.application_id, c.channel, c.transport, coalesce(c.country, x.country), c.prefix, i.at, c.segments, c.amount, c.currency, c.source,
      i.provider_message_id
    from price_input c join input i on i.id = c.id join pins x on x.id = c.pin_id
    where i.transport is not null
    on conflict (delivery_id) do nothing
    returning delivery_id
  )
select (select count(*) from sent) as sent, (select count(*) from history) as recorded, (select count(*) from priced) as priced`);

export async function completeMessages(db: Db, messages: CompletedMessage[]): Promise<void> {
  // A PIN row is updated once per statement: the last of its messages in the batch decides its
  // status; the statement finds its first message among them by the id the PIN names.
  const perPin = new Map<string, CompletedMessage>();
  for (const m of messages) perPin.set(m.pinId, m);
  const pins = [...perPin.values()];
  // A message delivered twice (at least once) is in the batch twice at most: `input` joins the first of its rows.
  const priced = [...new Map(messages.filter((m) => m.price !== undefined).map((m) => [m.id, m])).values()];
  const prices = priced.map((m) => m.price!);
  await run(db, COMPLETE_MESSAGES, [
    messages.map((m) => m.id), messages.map((m) => m.now), messages.map((m) => m.transport), messages.map((m) => m.providerMessageId), messages.map((m) => m.eventId),
    pins.map((m) => m.pinId), pins.map((m) => m.now), pins.map((m) => m.transport), pins.map((m) => m.providerMessageId),
    priced.map((m) => m.id), priced.map((m) => m.pinId), prices.map((p) => p.channel), prices.map((p) => p.country), prices.map((p) => p.prefix),
    prices.map((p) => p.segments), prices.map((p) => p.amount), prices.map((p) => p.currency), prices.map((p) => p.source), prices.map((p) => p.transport),
  ]);
}

async function run<Row>(db: Db, text: string, parameters: unknown[]): Promise<Row[]> {
  try {
    const result = await db.executeQuery<Row>(CompiledQuery.raw(text, parameters));
    return result.rows as Row[];
  } catch (err) {
    if (isRateLimitError(err)) throw new RateLimitRefusal();
    if (isBudgetError(err)) throw new BudgetRefusal();
    throw err;
  }
}
