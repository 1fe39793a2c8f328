// Webhook subscriptions and the event outbox, over the same Kysely database as the rest of the store.
// Events are written by the store itself, inside the transaction of the change they report (a PIN
// sent, delivered, failed, verified, locked or expired), and only for accounts with an enabled
// subscription to that type: an event exists if and only if its change committed, and none is lost
// between the change and its delivery. The event worker (src/delivery/events/event-worker.ts) then
// delivers the rows with retries, like the PIN outbox.
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import { maskDestination } from '../domain/destinations.js';
import { ALL_PIN_EVENTS, pinEventBody, subscribesTo, type AccountEventType, type PinEventData, type PinEventType } from '../domain/pin-events.js';
import type { RiskSummary } from '../domain/risk-score.js';
import type { TwilioVerificationEvent } from '../domain/twilio-events.js';
import type { PreludeWebhookType } from '../domain/prelude-webhooks.js';
import type { VonageCallbackType } from '../domain/vonage-callbacks.js';
import { sweepDialectCallbacks } from './dialect-callbacks.js';
import { deleteInBatches, PURGE_LIMITS, type PurgeLimits } from './purge-batches.js';
import type { Database, EventOutboxTable, WebhookSubscriptionsTable } from './schema.js';
import { PreparedQuery, type ParamOf } from './prepared-query.js';
import { UNCACHED, type ConfigReader } from './config-cache.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface WebhookSubscriptionRecord {
  id: string;
  accountId: string;
  url: string;
  /** Event types, or `*`. */
  events: string[];
  /** The `whsec_` secret encrypted under the PIN keyring (see src/service/webhooks.ts). */
  secretCiphertext: string;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

export type WebhookSubscriptionChanges = Partial<Pick<WebhookSubscriptionRecord, 'url' | 'events' | 'enabled' | 'secretCiphertext'>>;

export interface EventOutboxRecord {
  id: string;
  accountId: string;
  subscriptionId: string;
  /**
   * A pin.* event (of /api/v1/webhooks), an account event (budget.threshold), a verification.* event
   * (of a Twilio Verify Webhook), a Vonage callback (its subscription: the Vonage application) or a
   * Prelude webhook (its subscription: the verification, whose row holds the callback URL).
   */
  type: PinEventType | AccountEventType | TwilioVerificationEvent | VonageCallbackType | PreludeWebhookType;
  /** The PIN the event is about; '' for an account event (budget.threshold). */
  pinId: string;
  /** The body (JSON, or a form for a Twilio webhook), sent byte for byte on every attempt. */
  payload: string;
  /** Attempts so far, this one included. */
  attempts: number;
  createdAt: number;
}

export interface TwilioWebhookTarget {
  url: string;
  enabled: boolean;
  accountId: string;
  tokenCiphertext: string | null;
}

/** Where a Vonage application's callbacks go, with the encrypted secret that signs them. */
export interface VonageCallbackTarget {
  url: string | null;
  secretCiphertext: string | null;
}

/** What a state change tells the event about the delivery. */
export interface PinEventDetails {
  status: string;
  error?: string | null;
  transport?: string | null;
}

export interface EventStore {
  insertSubscription(subscription: WebhookSubscriptionRecord): Promise<void>;
  getSubscription(accountId: string, id: string): Promise<WebhookSubscriptionRecord | undefined>;
  listSubscriptions(accountId: string): Promise<WebhookSubscriptionRecord[]>;
  updateSubscription(accountId: string, id: string, changes: WebhookSubscriptionChanges, now: number): Promise<WebhookSubscriptionRecord | undefined>;
  /** Deletes the subscription and every event still waiting for it; false when the account has no such subscription. */
  deleteSubscription(accountId: string, id: string): Promise<boolean>;
  /** The subscriptions with these ids, whatever their account (for the worker, which serves every account). */
  findSubscriptions(ids: string[]): Promise<WebhookSubscriptionRecord[]>;
  /** A Twilio Verify Webhook an event goes to, with its account's encrypted Auth Token (null if it has none). */
  findTwilioWebhook(sid: string): Promise<TwilioWebhookTarget | undefined>;
  /** The callback target of a Vonage application (undefined: it is no Vonage application any more). */
  findVonageCallbackTarget(applicationId: string): Promise<VonageCallbackTarget | undefined>;
  /** The callback URL of a Prelude verification (undefined: none, or the row was purged). */
  findPreludeCallbackUrl(pinId: string): Promise<string | undefined>;
  /**
   * Queues the Vonage and Prelude callbacks that what committed since the last call makes due
   * (store/dialect-callbacks.ts); answers how many. The event worker calls it before each claim.
   */
  queueDialectCallbacks(now: number): Promise<number>;
  /** Every subscription's encrypted secret (re-encryption under the current key after TWOFA_SECRET is rotated). */
  listSecretCiphertexts(): Promise<{ id: string; secretCiphertext: string }[]>;
  /** Replaces an encrypted secret if it is still `previous` (another node may have done it already). */
  replaceSecretCiphertext(id: string, previous: string, next: string): Promise<void>;

  /** Leases up to `max` due events to `holder` (the node's id) until `leaseUntil` (SKIP LOCKED on PostgreSQL). */
  claim(now: number, leaseUntil: number, max: number, holder?: string): Promise<EventOutboxRecord[]>;
  /** Extends the leases `holder` still has under the claims (`attempts`) that gave it these events; answers how many. */
  renew(events: { id: string; attempts: number }[], holder: string, leaseUntil: number): Promise<number>;
  /** Gives back every pending event leased to `holder` but those of `keep` (in flight): see Store.releaseHeldOutbox. */
  releaseHeld(holder: string, now: number, keep?: string[]): Promise<number>;
  complete(id: string, now: number): Promise<void>;
  retry(id: string, nextAttemptAt: number, error: string, now: number): Promise<void>;
  /**
   * Queues an account event (budget.threshold), its body made already, for every enabled subscription
   * of the account to its type; returns how many rows.
   */
  enqueueAccountEvent(accountId: string, type: AccountEventType, payload: string, now: number, pinId?: string): Promise<number>;
  /** Gives up on an event: `failed` (attempts exhausted), `cancelled` (subscription disabled or gone). */
  fail(id: string, error: string, now: number, state: 'failed' | 'cancelled'): Promise<void>;
  /** Gives leased events back (graceful shutdown) so another worker takes them at once. */
  release(ids: string[], now: number): Promise<void>;
  countPending(): Promise<number>;
}

/** How many expired PINs one purge run reports as pin.expired at most (the rest follow on the next run). */
export const EXPIRED_EVENTS_PER_PURGE = 2000;
const EXPIRED_BATCH = 200;

/** A PIN's account's enabled subscription, with what an event needs of the PIN (SUBSCRIBERS_OF_PIN). */
export interface PinSubscriberRow {
  subscription_id: string;
  events: string;
  account_id: string;
  application_id: string;
  message_id: string;
  channel: string;
  destination: string;
  attempts_left: number;
  test_number: number;
  /** JSON of the risk assessment's summary, or null (pins.risk). */
  risk: string | null;
}

/** The event_outbox rows of `type` about a PIN, one per subscriber that receives it. */
export function pinEventRows(type: PinEventType, pinId: string, now: number, details: PinEventDetails, subscribers: PinSubscriberRow[]): Omit<Selectable<EventOutboxTable>, 'lease_holder'>[] {
  const targets = subscribers.filter((r) => subscribesTo(splitEvents(r.events), type));
  const first = targets[0];
  if (first === undefined) return [];
  const data: PinEventData = {
    pinId, applicationId: first.application_id, messageId: first.message_id, channel: first.channel,
    to: maskDestination(first.destination), status: details.status,
    ...(details.error !== undefined && details.error !== null && { error: details.error }),
    ...(type === 'pin.verified' || type === 'pin.expired' || type === 'pin.locked' ? { attemptsRemaining: first.attempts_left } : {}),
    ...(details.transport !== undefined && details.transport !== null && { transport: details.transport }),
    ...(Number(first.test_number) === 1 && { testNumber: true as const }),
    ...(first.risk !== null && first.risk !== undefined && { risk: JSON.parse(first.risk) as RiskSummary }),
  };
  const payload = pinEventBody(type, now, data);
  return targets.map((t) => ({
    id: randomUUID(), account_id: t.account_id, subscription_id: t.subscription_id, event_type: type, pin_id: pinId, payload,
    state: 'pending', attempts: 0, next_attempt_at: now, lease_until: 0, last_error: null, created_at: now, updated_at: now,
  }));
}

export class KyselyEventStore implements EventStore {
  /** The enabled subscriptions of a PIN's account, with what an event needs of the PIN (every verify and delivery asks). */
  private readonly subscribersOfPin = new PreparedQuery((db: Kysely<Database>, p: ParamOf<{ pinId: string }>) => db.selectFrom('pins')
    .innerJoin('webhook_subscriptions', 'webhook_subscriptions.account_id', 'pins.account_id')
    .select(['webhook_subscriptions.id as subscription_id', 'webhook_subscriptions.events', 'pins.account_id', 'pins.application_id',
      'pins.message_id', 'pins.channel', 'pins.destination', 'pins.attempts_left', 'pins.test_number', 'pins.risk'])
    .where('pins.id', '=', p('pinId')).where('webhook_subscriptions.enabled', '=', 1));

  /** Whether any subscription is enabled at all: most deployments have none, and then no PIN needs the join above. */
  private readonly anyEnabled = new PreparedQuery((db: Kysely<Database>) =>
    db.selectFrom('webhook_subscriptions').select('id').where('enabled', '=', 1).limit(1), { prepareByName: true });

  constructor(private readonly db: Kysely<Database>, private readonly dialect: 'sqlite' | 'postgres', private readonly config: ConfigReader = UNCACHED) {}

  // --- subscriptions ---

  async insertSubscription(s: WebhookSubscriptionRecord): Promise<void> {
    await this.db.insertInto('webhook_subscriptions').values({
      id: s.id, account_id: s.accountId, url: s.url, events: s.events.join(' '), secret_ciphertext: s.secretCiphertext,
      enabled: s.enabled ? 1 : 0, created_at: s.createdAt, updated_at: s.updatedAt,
    }).execute();
  }

  async getSubscription(accountId: string, id: string): Promise<WebhookSubscriptionRecord | undefined> {
    const row = await this.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return row && toSubscription(row);
  }

  async listSubscriptions(accountId: string): Promise<WebhookSubscriptionRecord[]> {
    const rows = await this.db.selectFrom('webhook_subscriptions').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
    return rows.map(toSubscription);
  }

  async updateSubscription(accountId: string, id: string, changes: WebhookSubscriptionChanges, now: number): Promise<WebhookSubscriptionRecord | undefined> {
    const row = await this.db.updateTable('webhook_subscriptions').set({
      updated_at: now,
      ...(changes.url !== undefined && { url: changes.url }),
      ...(changes.events !== undefined && { events: changes.events.join(' ') }),
      ...(changes.enabled !== undefined && { enabled: changes.enabled ? 1 : 0 }),
      ...(changes.secretCiphertext !== undefined && { secret_ciphertext: changes.secretCiphertext }),
    }).where('id', '=', id).where('account_id', '=', accountId).returningAll().executeTakeFirst();
    return row && toSubscription(row);
  }

  async deleteSubscription(accountId: string, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx.deleteFrom('webhook_subscriptions').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return false;
      await trx.deleteFrom('event_outbox').where('subscription_id', '=', id).execute();
      return true;
    });
  }

  async findSubscriptions(ids: string[]): Promise<WebhookSubscriptionRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('webhook_subscriptions').selectAll().where('id', 'in', ids).execute();
    return rows.map(toSubscription);
  }

  async findTwilioWebhook(sid: string): Promise<TwilioWebhookTarget | undefined> {
    const row = await this.db.selectFrom('twilio_webhooks as w').leftJoin('twilio_auth_tokens as t', 't.account_id', 'w.account_id')
      .select(['w.webhook_url', 'w.status', 'w.account_id', 't.token_ciphertext']).where('w.sid', '=', sid).executeTakeFirst();
    return row && { url: row.webhook_url, enabled: row.status === 'enabled', accountId: row.account_id, tokenCiphertext: row.token_ciphertext };
  }

  async findVonageCallbackTarget(applicationId: string): Promise<VonageCallbackTarget | undefined> {
    const row = await this.db.selectFrom('vonage_applications').select(['callback_url', 'signature_secret_ciphertext']).where('application_id', '=', applicationId).executeTakeFirst();
    return row && { url: row.callback_url, secretCiphertext: row.signature_secret_ciphertext };
  }

  async findPreludeCallbackUrl(pinId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('prelude_verifications').select('callback_url').where('pin_id', '=', pinId).executeTakeFirst();
    return row?.callback_url ?? undefined;
  }

  queueDialectCallbacks(now: number): Promise<number> {
    return sweepDialectCallbacks(this.db, this.dialect, now);
  }

  async listSecretCiphertexts(): Promise<{ id: string; secretCiphertext: string }[]> {
    const rows = await this.db.selectFrom('webhook_subscriptions').select(['id', 'secret_ciphertext']).execute();
    return rows.map((r) => ({ id: r.id, secretCiphertext: r.secret_ciphertext }));
  }

  async replaceSecretCiphertext(id: string, previous: string, next: string): Promise<void> {
    await this.db.updateTable('webhook_subscriptions').set({ secret_ciphertext: next })
      .where('id', '=', id).where('secret_ciphertext', '=', previous).execute();
  }

  // --- writing events (inside the store's transactions) ---

  /**
   * Queues `type` about a PIN for every enabled subscription of its account to that type, in the
   * caller's transaction. One query when the account subscribes to nothing. Returns how many rows.
   */
  /** Whether any webhook subscription is enabled (read through; enqueuePinEvent caches it where it can). */
  async anySubscriptionEnabled(db: Db): Promise<boolean> {
    return (await this.anyEnabled.first(db, {})) !== undefined;
  }

  async enqueueAccountEvent(accountId: string, type: AccountEventType, payload: string, now: number, pinId = ''): Promise<number> {
    const subscriptions = await this.db.selectFrom('webhook_subscriptions').select(['id', 'events']).where('account_id', '=', accountId).where('enabled', '=', 1).execute();
    const rows = subscriptions.filter((s) => subscribesTo(splitEvents(s.events), type)).map((s) => ({
      id: randomUUID(), account_id: accountId, subscription_id: s.id, event_type: type, pin_id: pinId, payload,
      state: 'pending', attempts: 0, next_attempt_at: now, lease_until: 0, last_error: null, created_at: now, updated_at: now,
    }));
    if (rows.length > 0) await this.db.insertInto('event_outbox').values(rows).execute();
    return rows.length;
  }

  async enqueuePinEvent(trx: Db, type: PinEventType, pinId: string, now: number, details: PinEventDetails): Promise<number> {
    // Where configuration is cached, a deployment without subscriptions skips the join (PostgreSQL always joins).
    if (this.config !== UNCACHED && !(await this.config.get('subscriptions:any-enabled', async () => (await this.anyEnabled.first(trx, {})) !== undefined))) return 0;
    const rows = pinEventRows(type, pinId, now, details, await this.subscribersOfPin.all(trx, { pinId }));
    if (rows.length > 0) await trx.insertInto('event_outbox').values(rows).execute();
    return rows.length;
  }

  /**
   * Accounts with an enabled subscription that receives pin.expired: the purge job leaves their
   * expired PINs to expirePins() so that each gets its event, and erases everyone else's at once.
   */
  expirySubscribers(db: Db) {
    return db.selectFrom('webhook_subscriptions').select('account_id').where('enabled', '=', 1)
      .where((eb) => eb.or([
        eb(sql<string>`' ' || events || ' '`, 'like', '% pin.expired %'),
        eb(sql<string>`' ' || events || ' '`, 'like', `% ${ALL_PIN_EVENTS} %`),
      ]));
  }

  /**
   * Ends expired, unverified PINs of subscribed accounts: erases their resend ciphertext and queues
   * pin.expired, a batch per transaction, at most EXPIRED_EVENTS_PER_PURGE per call so that a backlog
   * never makes one purge run long; what is left is taken by the next run (those PINs cannot be
   * verified or sent meanwhile: both check the expiry). Two nodes purging at once skip each other's
   * rows on PostgreSQL, and the ciphertext condition stops a PIN being reported twice.
   */
  async expirePins(now: number, limit = EXPIRED_EVENTS_PER_PURGE): Promise<number> {
    let total = 0;
    while (total < limit) {
      const batch = Math.min(EXPIRED_BATCH, limit - total);
      const ended = await this.db.transaction().execute(async (trx) => {
        let query = trx.selectFrom('pins').select('id')
          .where('expires_at', '<=', now).where('pin_ciphertext', 'is not', null)
          .where('verified_at', 'is', null).where('locked_at', 'is', null)
          // A filter, not a seek (`|| ''` keeps the planners off pins_account_created, which would
          // walk every PIN a subscribed account ever had): the rows come from the partial index
          // pins_unerased_expiry, which holds the PINs not erased yet only.
          .where(sql<string>`${sql.ref('account_id')} || ''`, 'in', this.expirySubscribers(trx))
          .orderBy('expires_at').limit(batch);
        if (this.dialect === 'postgres') query = query.forUpdate().skipLocked();
        const ids = (await query.execute()).map((r) => r.id);
        if (ids.length === 0) return 0;
        const erased = await trx.updateTable('pins').set({ pin_ciphertext: null })
          .where('id', 'in', ids).where('pin_ciphertext', 'is not', null).returning('id').execute();
        for (const { id } of erased) await this.enqueuePinEvent(trx, 'pin.expired', id, now, { status: 'expired' });
        return ids.length;
      });
      total += ended;
      if (ended < batch) break;
      await nextTurn(); // requests go first between batches
    }
    return total;
  }

  /** Deletes events that ended (delivered, failed, cancelled) before `cutoff`, in batches (index event_outbox_ended). */
  async purgeEnded(cutoff: number, limits: PurgeLimits = PURGE_LIMITS): Promise<void> {
    await deleteInBatches(this.db, this.dialect, limits, 'event_outbox', (batch) => this.db.selectFrom('event_outbox').select('id')
      .where('state', '<>', sql.lit('pending')).where('updated_at', '<=', cutoff).orderBy('updated_at').limit(batch));
  }

  // --- the event outbox ---

  async claim(now: number, leaseUntil: number, max: number, holder: string | null = null): Promise<EventOutboxRecord[]> {
    const rows = await this.db.updateTable('event_outbox')
      .set((eb) => ({ lease_until: leaseUntil, lease_holder: holder, attempts: eb('attempts', '+', 1), updated_at: now }))
      .where('id', 'in', (eb) => {
        let due = eb.selectFrom('event_outbox').select('id').where('state', '=', 'pending').where('next_attempt_at', '<=', now)
          .where('lease_until', '<=', now).orderBy('next_attempt_at').limit(max);
        // Several nodes claim from one PostgreSQL: skip rows another node is claiming right now.
        if (this.dialect === 'postgres') due = due.forUpdate().skipLocked();
        return due;
      })
      .where('state', '=', 'pending')
      .returningAll()
      .execute();
    rows.sort((x, y) => Number(x.next_attempt_at) - Number(y.next_attempt_at) || Number(x.created_at) - Number(y.created_at));
    return rows.map((r) => ({
      id: r.id, accountId: r.account_id, subscriptionId: r.subscription_id, type: r.event_type as EventOutboxRecord['type'], pinId: r.pin_id,
      payload: r.payload, attempts: r.attempts, createdAt: Number(r.created_at),
    }));
  }

  async complete(id: string, now: number): Promise<void> {
    await this.db.updateTable('event_outbox').set({ state: 'done', last_error: null, updated_at: now }).where('id', '=', id).execute();
  }

  async retry(id: string, nextAttemptAt: number, error: string, now: number): Promise<void> {
    await this.db.updateTable('event_outbox').set({ next_attempt_at: nextAttemptAt, lease_until: 0, last_error: error, updated_at: now })
      .where('id', '=', id).where('state', '=', 'pending').execute();
  }

  async fail(id: string, error: string, now: number, state: 'failed' | 'cancelled'): Promise<void> {
    await this.db.updateTable('event_outbox').set({ state, last_error: error, updated_at: now }).where('id', '=', id).execute();
  }

  async release(ids: string[], now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('event_outbox').set({ lease_until: 0, updated_at: now }).where('id', 'in', ids).where('state', '=', 'pending').execute();
  }

  async renew(events: { id: string; attempts: number }[], holder: string, leaseUntil: number): Promise<number> {
    if (events.length === 0) return 0;
    // A claim since (anyone's) counted one attempt more: its lease is not ours to extend. A lease of 0
    // was given back (a retry scheduled, a release): it stays given back.
    const renewed = await this.db.updateTable('event_outbox').set({ lease_until: leaseUntil })
      .where((eb) => eb.or(events.map((e) => eb.and([eb('id', '=', e.id), eb('attempts', '=', e.attempts)]))))
      .where('lease_holder', '=', holder).where('state', '=', 'pending').where('lease_until', '>', 0).executeTakeFirst();
    return Number(renewed.numUpdatedRows);
  }

  async releaseHeld(holder: string, now: number, keep: string[] = []): Promise<number> {
    let held = this.db.updateTable('event_outbox').set({ lease_until: 0, updated_at: now })
      .where('state', '=', 'pending').where('lease_holder', '=', holder).where('lease_until', '>', now);
    if (keep.length > 0) held = held.where('id', 'not in', keep);
    const released = await held.executeTakeFirst();
    return Number(released.numUpdatedRows);
  }

  async countPending(): Promise<number> {
    const row = await this.db.selectFrom('event_outbox').select((eb) => eb.fn.countAll<number>().as('n')).where('state', '=', 'pending').executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

function splitEvents(events: string): string[] {
  return events.split(' ').filter((e) => e.length > 0);
}

function toSubscription(row: Selectable<WebhookSubscriptionsTable>): WebhookSubscriptionRecord {
  return {
    id: row.id, accountId: row.account_id, url: row.url, events: splitEvents(row.events), secretCiphertext: row.secret_ciphertext,
    enabled: Number(row.enabled) === 1, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
}
