// The Twilio Verify dialect's own rows beside the engine's: the Twilio-only settings of a Service
// (an application) and the Twilio side of a Verification (a PIN). Every query is bounded by the
// account that asks. The PIN itself (its secret, attempts, expiry) stays in `pins`, and so does the
// verification's state: approved is a verified PIN, canceled or max_attempts_reached a locked one,
// expired an expired one. A verification's `status` says which end has been reported (its event
// queued, once: it moves from pending only once), and it moves in the transaction of the PIN's change
// that ends it (settlePin; Store.verifyPinAttempt with a DialectVerification), or in the expiry sweep.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import { maskDestination } from '../domain/destinations.js';
import { isOnSafeList, safeListOfKeys } from '../domain/safe-list.js';
import { UNCACHED, type ConfigReader } from './config-cache.js';
import { twilioEventBody, twilioSubscribesTo, type TwilioEventParams } from '../domain/twilio-events.js';
import { accountSid, serviceSid, verificationSid } from '../domain/twilio-sids.js';
import type { KyselyEventStore } from './event-store.js';
import { batchOf, inBatches, type PurgeLimits } from './purge-batches.js';
import type { Channel, DeliveryStatus } from '../domain/channels.js';
import type { Database, EventOutboxTable, TwilioRateLimitBucketsTable, TwilioRateLimitsTable, TwilioServicesTable, TwilioVerificationsTable, TwilioWebhooksTable } from './schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface TwilioServiceRow {
  applicationId: string;
  accountId: string;
  settings: Record<string, unknown>;
  smsMessageId: string | null;
  emailMessageId: string | null;
  deletedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export type TwilioVerificationStatus = 'pending' | 'approved' | 'canceled' | 'max_attempts_reached' | 'expired';

export interface TwilioWebhookRow {
  sid: string;
  accountId: string;
  applicationId: string;
  friendlyName: string;
  /** Event types, or `*`. */
  eventTypes: string[];
  webhookUrl: string;
  status: 'enabled' | 'disabled';
  version: 'v1' | 'v2';
  createdAt: number;
  updatedAt: number;
}

/** A verification event to queue, in the transaction of the change it reports, for the Service's webhooks. */
export interface TwilioEventDraft {
  applicationId: string;
  pinId: string;
  params: Omit<TwilioEventParams, 'uuid'>;
}

export interface SendCodeAttempt {
  time: number;
  channel: string;
  attemptSid: string;
}

export interface TwilioVerificationRow {
  pinId: string;
  accountId: string;
  status: TwilioVerificationStatus;
  channel: string;
  sendCodeAttempts: SendCodeAttempt[];
  createdAt: number;
  updatedAt: number;
  /** The PIN's expiry. */
  expiresAt: number;
  /** PSD2: what the start named (null when the Service is not a PSD2 one). */
  amount?: string | null;
  payee?: string | null;
}

export interface TwilioRateLimitRow {
  sid: string;
  accountId: string;
  applicationId: string;
  uniqueName: string;
  description: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface TwilioBucketRow {
  sid: string;
  rateLimitSid: string;
  accountId: string;
  applicationId: string;
  max: number;
  /** Seconds. */
  interval: number;
  createdAt: number;
  updatedAt: number;
}

/** A send as the account's attempt list shows it, with what its PIN says now. */
export interface TwilioAttemptRow {
  sid: string;
  accountId: string;
  pinId: string;
  channel: string;
  createdAt: number;
  applicationId: string;
  destination: string;
  pinChannel: Channel;
  country: string | null;
  verifiedAt: number | null;
  expiresAt: number;
  deliveryStatus: DeliveryStatus;
  deliveryError: string | null;
  /** The latest change the attempt's outcome saw (its PIN verified, locked or delivered). */
  updatedAt: number;
  /** What its message cost (store/price-store.ts), micro-units; null: not taken by a transport yet, or no known price. */
  price: { amount: number; currency: string } | null;
}

export interface AttemptFilter {
  since?: number;
  until?: number;
  applicationId?: string;
  pinId?: string;
  /** Exactly this destination (digits of a phone number, or an address). */
  destination?: string;
  /** Destinations starting with these digits. */
  destinationPrefix?: string;
  country?: string;
  channel?: string;
  converted?: boolean;
}

export interface TwilioMessagingConfigurationRow {
  applicationId: string;
  accountId: string;
  country: string;
  messagingServiceSid: string;
  createdAt: number;
  updatedAt: number;
}

/** An account's Auth Token as stored: encrypted under TWOFA_SECRET (it signs webhook events) and its SHA-256 (it is a login). */
export interface StoredAuthToken {
  ciphertext: string;
  digest: string;
}

export interface TwilioStore {
  getService(accountId: string, applicationId: string): Promise<TwilioServiceRow | undefined>;
  listServices(accountId: string): Promise<TwilioServiceRow[]>;
  /** Inserts or replaces the Twilio side of an application. */
  saveService(row: TwilioServiceRow): Promise<void>;
  getVerification(accountId: string, pinId: string): Promise<TwilioVerificationRow | undefined>;
  insertVerification(row: TwilioVerificationRow, event?: TwilioEventDraft): Promise<void>;
  /** Appends a send to a verification's history (a repeated start that re-sent the same code). */
  recordSend(accountId: string, pinId: string, attempt: SendCodeAttempt, now: number): Promise<void>;
  /** Moves a pending verification to `status`; false when it was no longer pending. */
  endVerification(accountId: string, pinId: string, status: Exclude<TwilioVerificationStatus, 'pending'>, now: number, event?: TwilioEventDraft): Promise<boolean>;
  /**
   * Approves or cancels a live PIN and its verification in one transaction: the PIN is marked verified
   * (approve, queuing pin.verified) or locked (cancel, queuing pin.locked) and its ciphertext erased, only if it is still live (conditional
   * UPDATE: a concurrent check or update cannot also end it). False when it had already ended.
   */
  settlePin(accountId: string, pinId: string, outcome: 'approved' | 'canceled', now: number, event?: TwilioEventDraft): Promise<boolean>;
  /**
   * Ends the pending verifications whose PIN expired: `expired` (queuing verification.expired for the
   * Service's webhooks), or the state their PIN reached meanwhile through the other dialect. At most
   * `limit` per call; answers how many were ended.
   */
  expireVerifications(now: number, limit?: number): Promise<number>;
  /** The id of the newest PIN of the application to the destination, if any. */
  latestPinId(accountId: string, applicationId: string, destination: string): Promise<string | undefined>;
  /** Deletes, in batches, the verification and attempt rows of PINs expired at or before `cutoff` (the PINs' own purge). */
  purge(cutoff: number, limits: PurgeLimits): Promise<number>;

  // Verification Attempts: the account's sends, newest first.
  listAttempts(accountId: string, filter: AttemptFilter, offset: number, limit: number): Promise<TwilioAttemptRow[]>;
  getAttempt(accountId: string, sid: string): Promise<TwilioAttemptRow | undefined>;
  /** How many attempts match, and how many of them belong to a verified PIN. */
  summarizeAttempts(accountId: string, filter: AttemptFilter): Promise<{ total: number; converted: number }>;

  // Messaging Configurations of a Service, by country.
  /** False when the service has a configuration for that country already. */
  insertMessagingConfiguration(row: TwilioMessagingConfigurationRow): Promise<boolean>;
  listMessagingConfigurations(accountId: string, applicationId: string): Promise<TwilioMessagingConfigurationRow[]>;
  updateMessagingConfiguration(row: TwilioMessagingConfigurationRow): Promise<boolean>;
  deleteMessagingConfiguration(accountId: string, applicationId: string, country: string): Promise<boolean>;

  // The account's Safe List: numbers and prefixes, each by its key (domain/safe-list.ts: a prefix's ends with `*`).
  /** Adds an entry; answers it as stored (the earlier one when it was listed already). */
  addSafeListed(accountId: string, key: string, sid: string, now: number): Promise<{ sid: string; createdAt: number }>;
  getSafeListed(accountId: string, key: string): Promise<{ sid: string; createdAt: number } | undefined>;
  /** Whether a number (digits) or one of its prefixes is listed; from the configuration cache, so cheap enough for every send. */
  isSafeListed(accountId: string, destination: string): Promise<boolean>;
  removeSafeListed(accountId: string, key: string): Promise<boolean>;
  /** Every entry of the account, by key. */
  listSafeListed(accountId: string): Promise<Array<{ key: string; sid: string; createdAt: number }>>;

  /** The message template of each locale the service has sent in (English is the service's own). */
  listLocaleMessages(accountId: string, applicationId: string): Promise<Array<{ locale: string; messageId: string }>>;
  /** Records a locale's message template; false when another request recorded one first (use that one). */
  saveLocaleMessage(accountId: string, applicationId: string, locale: string, messageId: string): Promise<boolean>;

  // Rate Limits and their Buckets, oldest first, inside the application (the Service) of the account.
  /** False when the application has a Rate Limit of that unique name already. */
  insertRateLimit(row: TwilioRateLimitRow): Promise<boolean>;
  getRateLimit(accountId: string, applicationId: string, sid: string): Promise<TwilioRateLimitRow | undefined>;
  listRateLimits(accountId: string, applicationId: string): Promise<TwilioRateLimitRow[]>;
  updateRateLimit(row: TwilioRateLimitRow): Promise<void>;
  /** Deletes a Rate Limit with its Buckets; false when there was none. */
  deleteRateLimit(accountId: string, applicationId: string, sid: string): Promise<boolean>;
  insertBucket(row: TwilioBucketRow): Promise<void>;
  getBucket(accountId: string, rateLimitSid: string, sid: string): Promise<TwilioBucketRow | undefined>;
  listBuckets(accountId: string, rateLimitSids: readonly string[]): Promise<TwilioBucketRow[]>;
  updateBucket(row: TwilioBucketRow): Promise<void>;
  deleteBucket(accountId: string, rateLimitSid: string, sid: string): Promise<boolean>;

  // Verify Webhooks of a Service, oldest first, and the account's Auth Token that signs their events.
  insertWebhook(row: TwilioWebhookRow): Promise<void>;
  getWebhook(accountId: string, applicationId: string, sid: string): Promise<TwilioWebhookRow | undefined>;
  listWebhooks(accountId: string, applicationId: string): Promise<TwilioWebhookRow[]>;
  updateWebhook(row: TwilioWebhookRow): Promise<void>;
  /** Deletes a webhook and the events still waiting for it; false when there was none. */
  deleteWebhook(accountId: string, applicationId: string, sid: string): Promise<boolean>;
  getAuthToken(accountId: string): Promise<string | undefined>;
  /** Stores the token unless the account has one (then answers that one's ciphertext): two first requests at once agree on one token. */
  ensureAuthToken(accountId: string, token: StoredAuthToken, now: number): Promise<string>;
  /**
   * Replaces the account's token (rotation). The replaced token's digest stays a valid login until
   * `previousValidUntil` (none: from now on it is not one).
   */
  replaceAuthToken(accountId: string, token: StoredAuthToken, now: number, previousValidUntil?: number): Promise<void>;
  /** Re-encrypts the token (and fills in its digest) if its ciphertext is still `previous`: a new TWOFA_SECRET, same token. */
  reencryptAuthToken(accountId: string, token: StoredAuthToken, previous: string): Promise<void>;
  listAuthTokens(): Promise<Array<{ accountId: string; tokenCiphertext: string; tokenDigest: string | null }>>;
  /** The account whose token, or whose replaced token still within its grace at `now`, has this digest. */
  findAuthTokenAccount(tokenDigest: string, now: number): Promise<string | undefined>;

  /** Takes the start lock of `key` until `until`, unless another start holds it (false): a race gate. */
  lockStart(key: string, now: number, until: number): Promise<boolean>;
  unlockStart(key: string, until: number): Promise<void>;
}

/**
 * The event outbox rows of a verification event: one for each of the Service's enabled webhooks
 * (`hooks`) subscribed to its type.
 */
export function twilioEventRows(accountId: string, event: TwilioEventDraft, now: number, hooks: ReadonlyArray<{ sid: string; event_types: string }>): Array<Omit<Selectable<EventOutboxTable>, 'lease_holder'>> {
  const targets = hooks.filter((h) => twilioSubscribesTo(h.event_types.split(' '), event.params.type));
  if (targets.length === 0) return [];
  const payload = twilioEventBody({ uuid: randomUUID(), ...event.params });
  return targets.map((t) => ({
    id: randomUUID(), account_id: accountId, subscription_id: t.sid, event_type: event.params.type, pin_id: event.pinId, payload,
    state: 'pending', attempts: 0, next_attempt_at: now, lease_until: 0, last_error: null, created_at: now, updated_at: now,
  }));
}

/** The event as told of a verification on `channel` (its row's). */
export function withChannel(event: TwilioEventDraft, channel: string): TwilioEventDraft {
  return { ...event, params: { ...event.params, channel } };
}

/** Verifications the expiry sweep ends in one transaction. */
const EXPIRY_BATCH = 200;
const EXPIRED_PER_SWEEP = 2000;

function webhookFromRow(row: Selectable<TwilioWebhooksTable>): TwilioWebhookRow {
  return {
    sid: row.sid, accountId: row.account_id, applicationId: row.application_id, friendlyName: row.friendly_name,
    eventTypes: row.event_types.split(' ').filter((e) => e !== ''), webhookUrl: row.webhook_url, status: row.status as TwilioWebhookRow['status'],
    version: row.version as TwilioWebhookRow['version'], createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
}

function serviceFromRow(row: Selectable<TwilioServicesTable>): TwilioServiceRow {
  return {
    applicationId: row.application_id, accountId: row.account_id, settings: JSON.parse(row.settings) as Record<string, unknown>,
    smsMessageId: row.sms_message_id, emailMessageId: row.email_message_id, deletedAt: row.deleted_at === null ? null : Number(row.deleted_at),
    createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
}

function verificationFromRow(row: Selectable<TwilioVerificationsTable>, attempts: SendCodeAttempt[]): TwilioVerificationRow {
  return {
    pinId: row.pin_id, accountId: row.account_id, status: row.status as TwilioVerificationStatus, channel: row.channel,
    sendCodeAttempts: attempts, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at), expiresAt: Number(row.expires_at),
    amount: row.amount ?? null, payee: row.payee ?? null,
  };
}

function rateLimitFromRow(row: Selectable<TwilioRateLimitsTable>): TwilioRateLimitRow {
  return {
    sid: row.sid, accountId: row.account_id, applicationId: row.application_id, uniqueName: row.unique_name, description: row.description,
    createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
}

function bucketFromRow(row: Selectable<TwilioRateLimitBucketsTable>): TwilioBucketRow {
  return {
    sid: row.sid, rateLimitSid: row.rate_limit_sid, accountId: row.account_id, applicationId: row.application_id, max: Number(row.max),
    interval: Number(row.interval), createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
}

const ATTEMPT_COLUMNS = [
  'a.sid', 'a.account_id', 'a.pin_id', 'a.channel', 'a.created_at', 'p.application_id', 'p.destination', 'p.channel as pin_channel', 'p.country',
  'p.verified_at', 'p.locked_at', 'p.expires_at', 'p.delivery_status', 'p.delivery_error', 'p.delivered_at',
] as const;

/**
 * The price of an attempt's message: an attempt's SID is VL and its message's delivery id without
 * dashes (domain/twilio-sids.ts attemptSid), found among its PIN's priced messages.
 */
const attemptPrice = (column: 'amount' | 'currency') => sql<string | number | null>`(select mp.${sql.ref(column)} from message_prices mp
  where mp.pin_id = a.pin_id and replace(mp.delivery_id, '-', '') = lower(substr(a.sid, 3)))`;
const ATTEMPT_PRICE = [attemptPrice('amount').as('price_amount'), attemptPrice('currency').as('price_currency')] as const;

function attemptFromRow(row: {
  sid: string; account_id: string; pin_id: string; channel: string; created_at: number; application_id: string; destination: string; pin_channel: string;
  country: string | null; verified_at: number | null; locked_at: number | null; expires_at: number; delivery_status: string; delivery_error: string | null; delivered_at: number | null;
  price_amount: string | number | null; price_currency: string | number | null;
}): TwilioAttemptRow {
  const createdAt = Number(row.created_at);
  return {
    sid: row.sid, accountId: row.account_id, pinId: row.pin_id, channel: row.channel, createdAt, applicationId: row.application_id,
    destination: row.destination, pinChannel: row.pin_channel as Channel, country: row.country,
    verifiedAt: row.verified_at === null ? null : Number(row.verified_at), expiresAt: Number(row.expires_at),
    deliveryStatus: row.delivery_status as DeliveryStatus, deliveryError: row.delivery_error,
    updatedAt: Math.max(createdAt, Number(row.verified_at ?? 0), Number(row.locked_at ?? 0), Number(row.delivered_at ?? 0)),
    price: row.price_amount === null || row.price_currency === null ? null : { amount: Number(row.price_amount), currency: String(row.price_currency) },
  };
}

export class KyselyTwilioStore implements TwilioStore {
  /** `config`: the configuration cache, which holds each account's Safe List (a configuration table: its changes bump the version). */
  constructor(private readonly db: Kysely<Database>, private readonly dialect: 'sqlite' | 'postgres', private readonly events: KyselyEventStore, private readonly config: ConfigReader = UNCACHED) {}

  async getService(accountId: string, applicationId: string): Promise<TwilioServiceRow | undefined> {
    const row = await this.db.selectFrom('twilio_services').selectAll().where('application_id', '=', applicationId).where('account_id', '=', accountId).executeTakeFirst();
    return row ? serviceFromRow(row) : undefined;
  }

  async listServices(accountId: string): Promise<TwilioServiceRow[]> {
    const rows = await this.db.selectFrom('twilio_services').selectAll().where('account_id', '=', accountId).execute();
    return rows.map(serviceFromRow);
  }

  async saveService(row: TwilioServiceRow): Promise<void> {
    const values = {
      application_id: row.applicationId, account_id: row.accountId, settings: JSON.stringify(row.settings), sms_message_id: row.smsMessageId,
      email_message_id: row.emailMessageId, deleted_at: row.deletedAt, created_at: row.createdAt, updated_at: row.updatedAt,
    };
    await this.db.insertInto('twilio_services').values(values)
      .onConflict((oc) => oc.column('application_id').doUpdateSet({
        settings: values.settings, sms_message_id: values.sms_message_id, email_message_id: values.email_message_id,
        deleted_at: values.deleted_at, updated_at: values.updated_at,
      }))
      .execute();
  }

  async getVerification(accountId: string, pinId: string): Promise<TwilioVerificationRow | undefined> {
    const row = await this.db.selectFrom('twilio_verifications').selectAll().where('pin_id', '=', pinId).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) return undefined;
    const attempts = await this.db.selectFrom('twilio_attempts').select(['sid', 'channel', 'created_at'])
      .where('pin_id', '=', pinId).where('account_id', '=', accountId).orderBy('seq').execute();
    return verificationFromRow(row, attempts.map((a) => ({ time: Number(a.created_at), channel: a.channel, attemptSid: a.sid })));
  }

  async insertVerification(row: TwilioVerificationRow, event?: TwilioEventDraft): Promise<void> {
    await this.db.transaction().execute((trx) => this.insertVerificationIn(trx, row, event));
  }

  /** insertVerification in the caller's transaction: the engine's, for the verification a new PIN starts (Store.createPin with a DialectStart). */
  async insertVerificationIn(trx: Db, row: TwilioVerificationRow, event?: TwilioEventDraft): Promise<void> {
    if (event) await this.enqueueEvent(trx, row.accountId, event, row.createdAt);
    await trx.insertInto('twilio_verifications').values({
      pin_id: row.pinId, account_id: row.accountId, status: row.status, channel: row.channel, created_at: row.createdAt, updated_at: row.updatedAt, expires_at: row.expiresAt,
      amount: row.amount ?? null, payee: row.payee ?? null,
    }).execute();
    for (const [seq, attempt] of row.sendCodeAttempts.entries()) await this.insertAttempt(trx, row.accountId, row.pinId, attempt, seq, row.expiresAt);
  }

  private async insertAttempt(db: Kysely<Database>, accountId: string, pinId: string, attempt: SendCodeAttempt, seq: number, expiresAt: number): Promise<void> {
    await db.insertInto('twilio_attempts').values({ sid: attempt.attemptSid, account_id: accountId, pin_id: pinId, channel: attempt.channel, seq, created_at: attempt.time, expires_at: expiresAt }).execute();
  }

  async recordSend(accountId: string, pinId: string, attempt: SendCodeAttempt, now: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('twilio_verifications').select('expires_at').where('pin_id', '=', pinId).where('account_id', '=', accountId).executeTakeFirst();
      if (!row) return;
      const sends = await trx.selectFrom('twilio_attempts').select((eb) => eb.fn.countAll<number | string>().as('n')).where('pin_id', '=', pinId).executeTakeFirst();
      await this.insertAttempt(trx, accountId, pinId, attempt, Number(sends?.n ?? 0), Number(row.expires_at));
      await trx.updateTable('twilio_verifications').set({ channel: attempt.channel, updated_at: now })
        .where('pin_id', '=', pinId).where('account_id', '=', accountId).execute();
    });
  }

  async endVerification(accountId: string, pinId: string, status: Exclude<TwilioVerificationStatus, 'pending'>, now: number, event?: TwilioEventDraft): Promise<boolean> {
    return this.db.transaction().execute((trx) => this.endVerificationIn(trx, accountId, pinId, status, now, event));
  }

  /**
   * endVerification in the caller's transaction: the engine's, when the change of the PIN that ends
   * the verification is made there (Store.verifyPinAttempt with a DialectVerification).
   */
  async endVerificationIn(trx: Db, accountId: string, pinId: string, status: Exclude<TwilioVerificationStatus, 'pending'>, now: number, event?: TwilioEventDraft): Promise<boolean> {
    // Race gate: of concurrent ends of one verification only the first reports it.
    const ended = await trx.updateTable('twilio_verifications').set({ status, updated_at: now })
      .where('pin_id', '=', pinId).where('account_id', '=', accountId).where('status', '=', 'pending').returning('channel').executeTakeFirst();
    // The event names the verification's own channel, whoever drafted it (the engine's verify drafts it from the PIN's).
    if (ended && event) await this.enqueueEvent(trx, accountId, withChannel(event, ended.channel), now);
    return ended !== undefined;
  }

  /**
   * Queues a verification event for every enabled webhook of the Service subscribed to its type, in
   * the caller's transaction, one row each in the event outbox that the event worker delivers.
   */
  private async enqueueEvent(trx: Db, accountId: string, event: TwilioEventDraft, now: number): Promise<number> {
    const hooks = await trx.selectFrom('twilio_webhooks').select(['sid', 'event_types'])
      .where('application_id', '=', event.applicationId).where('account_id', '=', accountId).where('status', '=', 'enabled').execute();
    const rows = twilioEventRows(accountId, event, now, hooks);
    if (rows.length > 0) await trx.insertInto('event_outbox').values(rows).execute();
    return rows.length;
  }

  async expireVerifications(now: number, limit = EXPIRED_PER_SWEEP): Promise<number> {
    let total = 0;
    while (total < limit) {
      const batch = Math.min(EXPIRY_BATCH, limit - total);
      const found = await this.db.transaction().execute(async (trx) => {
        let query = trx.selectFrom('twilio_verifications as v').innerJoin('pins as p', 'p.id', 'v.pin_id')
          .select(['v.pin_id', 'v.account_id', 'v.channel', 'p.application_id', 'p.destination', 'p.verified_at', 'p.locked_at', 'p.attempts_left'])
          .where('v.status', '=', 'pending').where('v.expires_at', '<=', now).orderBy('v.expires_at').limit(batch);
        // Two nodes sweeping at once skip each other's rows; the status condition below stops a double report anyway.
        if (this.dialect === 'postgres') query = query.forUpdate('v').skipLocked();
        const rows = await query.execute();
        for (const r of rows) {
          const status = r.verified_at !== null ? 'approved' : r.locked_at !== null ? (Number(r.attempts_left) === 0 ? 'max_attempts_reached' : 'canceled') : 'expired';
          const event: TwilioEventDraft | undefined = status !== 'expired' ? undefined : {
            applicationId: r.application_id, pinId: r.pin_id,
            params: {
              type: 'verification.expired', account_sid: accountSid(r.account_id), service_sid: serviceSid(r.application_id), verification_sid: verificationSid(r.pin_id),
              channel: r.channel, to: maskDestination(r.destination), status, date_created: new Date(now).toISOString(),
            },
          };
          const updated = await trx.updateTable('twilio_verifications').set({ status, updated_at: now })
            .where('pin_id', '=', r.pin_id).where('status', '=', 'pending').executeTakeFirst();
          if (Number(updated.numUpdatedRows) > 0 && event) await this.enqueueEvent(trx, r.account_id, event, now);
        }
        return rows.length;
      });
      total += found;
      if (found < batch) break;
    }
    return total;
  }

  async settlePin(accountId: string, pinId: string, outcome: 'approved' | 'canceled', now: number, event?: TwilioEventDraft): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // Race gate: only a PIN still live is settled, so a concurrent check, approve or cancel cannot also end it.
      const settled = await trx.updateTable('pins')
        .set(outcome === 'approved' ? { verified_at: now, pin_ciphertext: null } : { locked_at: now, pin_ciphertext: null })
        .where('id', '=', pinId).where('account_id', '=', accountId)
        .where('verified_at', 'is', null).where('locked_at', 'is', null).where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(settled.numUpdatedRows) === 0) return false;
      // The account's webhooks hear of it as of any verification or lock, in the same transaction.
      if (outcome === 'approved') await this.events.enqueuePinEvent(trx, 'pin.verified', pinId, now, { status: 'verified' });
      else await this.events.enqueuePinEvent(trx, 'pin.locked', pinId, now, { status: 'locked' });
      await trx.updateTable('twilio_verifications').set({ status: outcome, updated_at: now })
        .where('pin_id', '=', pinId).where('account_id', '=', accountId).execute();
      if (event) await this.enqueueEvent(trx, accountId, event, now);
      return true;
    });
  }

  async latestPinId(accountId: string, applicationId: string, destination: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('pins').select('id')
      .where('application_id', '=', applicationId).where('destination', '=', destination).where('account_id', '=', accountId)
      .orderBy('created_at', 'desc').limit(1).executeTakeFirst();
    return row?.id;
  }

  async purge(cutoff: number, limits: PurgeLimits): Promise<number> {
    await inBatches(limits, async (batch) => (await this.db.deleteFrom('twilio_attempts')
      .where('sid', 'in', batchOf(this.db.selectFrom('twilio_attempts').select('sid').where('expires_at', '<=', cutoff).orderBy('expires_at').limit(batch), this.dialect))
      .executeTakeFirst()).numDeletedRows);
    return inBatches(limits, async (batch) => (await this.db.deleteFrom('twilio_verifications')
      .where('pin_id', 'in', batchOf(this.db.selectFrom('twilio_verifications').select('pin_id').where('expires_at', '<=', cutoff).orderBy('expires_at').limit(batch), this.dialect))
      .executeTakeFirst()).numDeletedRows);
  }

  private attempts(accountId: string, filter: AttemptFilter) {
    let query = this.db.selectFrom('twilio_attempts as a').innerJoin('pins as p', 'p.id', 'a.pin_id')
      .where('a.account_id', '=', accountId).where('p.account_id', '=', accountId);
    if (filter.since !== undefined) query = query.where('a.created_at', '>=', filter.since);
    if (filter.until !== undefined) query = query.where('a.created_at', '<=', filter.until);
    if (filter.applicationId !== undefined) query = query.where('p.application_id', '=', filter.applicationId);
    if (filter.pinId !== undefined) query = query.where('a.pin_id', '=', filter.pinId);
    if (filter.destination !== undefined) query = query.where('p.destination', '=', filter.destination);
    if (filter.destinationPrefix !== undefined) query = query.where('p.destination', 'like', `${filter.destinationPrefix.replace(/[^0-9]/g, '')}%`);
    if (filter.country !== undefined) query = query.where('p.country', '=', filter.country.toUpperCase());
    if (filter.channel !== undefined) query = query.where('a.channel', '=', filter.channel);
    if (filter.converted !== undefined) query = query.where('p.verified_at', filter.converted ? 'is not' : 'is', null);
    return query;
  }

  async listAttempts(accountId: string, filter: AttemptFilter, offset: number, limit: number): Promise<TwilioAttemptRow[]> {
    const rows = await this.attempts(accountId, filter).select(ATTEMPT_COLUMNS).select(ATTEMPT_PRICE).orderBy('a.created_at', 'desc').orderBy('a.pin_id', 'desc').orderBy('a.seq', 'desc').limit(limit).offset(offset).execute();
    return rows.map(attemptFromRow);
  }

  async getAttempt(accountId: string, sid: string): Promise<TwilioAttemptRow | undefined> {
    const row = await this.attempts(accountId, {}).select(ATTEMPT_COLUMNS).select(ATTEMPT_PRICE).where('a.sid', '=', sid).executeTakeFirst();
    return row ? attemptFromRow(row) : undefined;
  }

  async summarizeAttempts(accountId: string, filter: AttemptFilter): Promise<{ total: number; converted: number }> {
    const row = await this.attempts(accountId, filter)
      .select([sql<number | string>`count(*)`.as('total'), sql<number | string | null>`sum(case when p.verified_at is not null then 1 else 0 end)`.as('converted')])
      .executeTakeFirst();
    return { total: Number(row?.total ?? 0), converted: Number(row?.converted ?? 0) };
  }

  async insertRateLimit(row: TwilioRateLimitRow): Promise<boolean> {
    // The unique constraint decides between two creates of one name at once.
    const inserted = await this.db.insertInto('twilio_rate_limits').values({
      sid: row.sid, account_id: row.accountId, application_id: row.applicationId, unique_name: row.uniqueName, description: row.description,
      created_at: row.createdAt, updated_at: row.updatedAt,
    }).onConflict((oc) => oc.columns(['application_id', 'unique_name']).doNothing()).executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async getRateLimit(accountId: string, applicationId: string, sid: string): Promise<TwilioRateLimitRow | undefined> {
    const row = await this.db.selectFrom('twilio_rate_limits').selectAll()
      .where('sid', '=', sid).where('account_id', '=', accountId).where('application_id', '=', applicationId).executeTakeFirst();
    return row ? rateLimitFromRow(row) : undefined;
  }

  async listRateLimits(accountId: string, applicationId: string): Promise<TwilioRateLimitRow[]> {
    const rows = await this.db.selectFrom('twilio_rate_limits').selectAll()
      .where('application_id', '=', applicationId).where('account_id', '=', accountId).orderBy('created_at').orderBy('sid').execute();
    return rows.map(rateLimitFromRow);
  }

  async updateRateLimit(row: TwilioRateLimitRow): Promise<void> {
    await this.db.updateTable('twilio_rate_limits').set({ description: row.description, updated_at: row.updatedAt })
      .where('sid', '=', row.sid).where('account_id', '=', row.accountId).execute();
  }

  async deleteRateLimit(accountId: string, applicationId: string, sid: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx.deleteFrom('twilio_rate_limits').where('sid', '=', sid).where('account_id', '=', accountId).where('application_id', '=', applicationId).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return false;
      await trx.deleteFrom('twilio_rate_limit_buckets').where('rate_limit_sid', '=', sid).where('account_id', '=', accountId).execute();
      return true;
    });
  }

  async insertBucket(row: TwilioBucketRow): Promise<void> {
    await this.db.insertInto('twilio_rate_limit_buckets').values({
      sid: row.sid, rate_limit_sid: row.rateLimitSid, account_id: row.accountId, application_id: row.applicationId, max: row.max, interval: row.interval,
      created_at: row.createdAt, updated_at: row.updatedAt,
    }).execute();
  }

  async getBucket(accountId: string, rateLimitSid: string, sid: string): Promise<TwilioBucketRow | undefined> {
    const row = await this.db.selectFrom('twilio_rate_limit_buckets').selectAll()
      .where('sid', '=', sid).where('rate_limit_sid', '=', rateLimitSid).where('account_id', '=', accountId).executeTakeFirst();
    return row ? bucketFromRow(row) : undefined;
  }

  async listBuckets(accountId: string, rateLimitSids: readonly string[]): Promise<TwilioBucketRow[]> {
    if (rateLimitSids.length === 0) return [];
    const rows = await this.db.selectFrom('twilio_rate_limit_buckets').selectAll()
      .where('rate_limit_sid', 'in', rateLimitSids).where('account_id', '=', accountId).orderBy('created_at').orderBy('sid').execute();
    return rows.map(bucketFromRow);
  }

  async updateBucket(row: TwilioBucketRow): Promise<void> {
    await this.db.updateTable('twilio_rate_limit_buckets').set({ max: row.max, interval: row.interval, updated_at: row.updatedAt })
      .where('sid', '=', row.sid).where('account_id', '=', row.accountId).execute();
  }

  async deleteBucket(accountId: string, rateLimitSid: string, sid: string): Promise<boolean> {
    const deleted = await this.db.deleteFrom('twilio_rate_limit_buckets').where('sid', '=', sid).where('rate_limit_sid', '=', rateLimitSid).where('account_id', '=', accountId).executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }

  async listLocaleMessages(accountId: string, applicationId: string): Promise<Array<{ locale: string; messageId: string }>> {
    const rows = await this.db.selectFrom('twilio_service_locales').select(['locale', 'message_id'])
      .where('application_id', '=', applicationId).where('account_id', '=', accountId).orderBy('locale').execute();
    return rows.map((r) => ({ locale: r.locale, messageId: r.message_id }));
  }

  async saveLocaleMessage(accountId: string, applicationId: string, locale: string, messageId: string): Promise<boolean> {
    const inserted = await this.db.insertInto('twilio_service_locales').values({ application_id: applicationId, locale, account_id: accountId, message_id: messageId })
      .onConflict((oc) => oc.columns(['application_id', 'locale']).doNothing()).executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async addSafeListed(accountId: string, key: string, sid: string, now: number): Promise<{ sid: string; createdAt: number }> {
    await this.db.insertInto('safe_list_numbers').values({ account_id: accountId, destination: key, sid, created_at: now })
      .onConflict((oc) => oc.columns(['account_id', 'destination']).doNothing()).execute();
    return (await this.getSafeListed(accountId, key)) ?? { sid, createdAt: now };
  }

  async getSafeListed(accountId: string, key: string): Promise<{ sid: string; createdAt: number } | undefined> {
    const row = await this.db.selectFrom('safe_list_numbers').select(['sid', 'created_at']).where('account_id', '=', accountId).where('destination', '=', key).executeTakeFirst();
    return row ? { sid: row.sid, createdAt: Number(row.created_at) } : undefined;
  }

  async isSafeListed(accountId: string, destination: string): Promise<boolean> {
    const list = await this.config.get(`safe-list:${accountId}`, async () => safeListOfKeys((await this.listSafeListed(accountId)).map((e) => e.key)));
    return isOnSafeList(list, destination);
  }

  async removeSafeListed(accountId: string, key: string): Promise<boolean> {
    const deleted = await this.db.deleteFrom('safe_list_numbers').where('account_id', '=', accountId).where('destination', '=', key).executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }

  async listSafeListed(accountId: string): Promise<Array<{ key: string; sid: string; createdAt: number }>> {
    const rows = await this.db.selectFrom('safe_list_numbers').select(['destination', 'sid', 'created_at']).where('account_id', '=', accountId).orderBy('destination').execute();
    return rows.map((r) => ({ key: r.destination, sid: r.sid, createdAt: Number(r.created_at) }));
  }

  async insertMessagingConfiguration(row: TwilioMessagingConfigurationRow): Promise<boolean> {
    const inserted = await this.db.insertInto('twilio_messaging_configurations').values({
      application_id: row.applicationId, country: row.country, account_id: row.accountId, messaging_service_sid: row.messagingServiceSid,
      created_at: row.createdAt, updated_at: row.updatedAt,
    }).onConflict((oc) => oc.columns(['application_id', 'country']).doNothing()).executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async listMessagingConfigurations(accountId: string, applicationId: string): Promise<TwilioMessagingConfigurationRow[]> {
    const rows = await this.db.selectFrom('twilio_messaging_configurations').selectAll()
      .where('application_id', '=', applicationId).where('account_id', '=', accountId).orderBy('country').execute();
    return rows.map((r) => ({
      applicationId: r.application_id, accountId: r.account_id, country: r.country, messagingServiceSid: r.messaging_service_sid,
      createdAt: Number(r.created_at), updatedAt: Number(r.updated_at),
    }));
  }

  async updateMessagingConfiguration(row: TwilioMessagingConfigurationRow): Promise<boolean> {
    const updated = await this.db.updateTable('twilio_messaging_configurations').set({ messaging_service_sid: row.messagingServiceSid, updated_at: row.updatedAt })
      .where('application_id', '=', row.applicationId).where('account_id', '=', row.accountId).where('country', '=', row.country).executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  async deleteMessagingConfiguration(accountId: string, applicationId: string, country: string): Promise<boolean> {
    const deleted = await this.db.deleteFrom('twilio_messaging_configurations')
      .where('application_id', '=', applicationId).where('account_id', '=', accountId).where('country', '=', country).executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }

  async insertWebhook(row: TwilioWebhookRow): Promise<void> {
    await this.db.insertInto('twilio_webhooks').values({
      sid: row.sid, account_id: row.accountId, application_id: row.applicationId, friendly_name: row.friendlyName, event_types: row.eventTypes.join(' '),
      webhook_url: row.webhookUrl, status: row.status, version: row.version, created_at: row.createdAt, updated_at: row.updatedAt,
    }).execute();
  }

  async getWebhook(accountId: string, applicationId: string, sid: string): Promise<TwilioWebhookRow | undefined> {
    const row = await this.db.selectFrom('twilio_webhooks').selectAll()
      .where('sid', '=', sid).where('application_id', '=', applicationId).where('account_id', '=', accountId).executeTakeFirst();
    return row ? webhookFromRow(row) : undefined;
  }

  async listWebhooks(accountId: string, applicationId: string): Promise<TwilioWebhookRow[]> {
    const rows = await this.db.selectFrom('twilio_webhooks').selectAll()
      .where('application_id', '=', applicationId).where('account_id', '=', accountId).orderBy('created_at').orderBy('sid').execute();
    return rows.map(webhookFromRow);
  }

  async updateWebhook(row: TwilioWebhookRow): Promise<void> {
    await this.db.updateTable('twilio_webhooks').set({
      friendly_name: row.friendlyName, event_types: row.eventTypes.join(' '), webhook_url: row.webhookUrl, status: row.status, version: row.version, updated_at: row.updatedAt,
    }).where('sid', '=', row.sid).where('account_id', '=', row.accountId).execute();
  }

  async deleteWebhook(accountId: string, applicationId: string, sid: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx.deleteFrom('twilio_webhooks').where('sid', '=', sid).where('application_id', '=', applicationId).where('account_id', '=', accountId).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return false;
      await trx.deleteFrom('event_outbox').where('subscription_id', '=', sid).where('state', '=', 'pending').execute();
      return true;
    });
  }

  async getAuthToken(accountId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('twilio_auth_tokens').select('token_ciphertext').where('account_id', '=', accountId).executeTakeFirst();
    return row?.token_ciphertext;
  }

  async ensureAuthToken(accountId: string, token: StoredAuthToken, now: number): Promise<string> {
    await this.db.insertInto('twilio_auth_tokens').values({ account_id: accountId, token_ciphertext: token.ciphertext, token_digest: token.digest, created_at: now, updated_at: now })
      .onConflict((oc) => oc.column('account_id').doNothing()).execute();
    return (await this.getAuthToken(accountId)) ?? token.ciphertext;
  }

  async replaceAuthToken(accountId: string, token: StoredAuthToken, now: number, previousValidUntil?: number): Promise<void> {
    const graced = previousValidUntil !== undefined && previousValidUntil > now;
    await this.db.insertInto('twilio_auth_tokens').values({ account_id: accountId, token_ciphertext: token.ciphertext, token_digest: token.digest, created_at: now, updated_at: now })
      .onConflict((oc) => oc.column('account_id').doUpdateSet({
        token_ciphertext: token.ciphertext, token_digest: token.digest, updated_at: now,
        // The replaced token's digest, read from the row being replaced in the same statement.
        previous_token_digest: graced ? sql<string | null>`${sql.ref('twilio_auth_tokens.token_digest')}` : null,
        previous_valid_until: graced ? previousValidUntil : null,
      })).execute();
  }

  async reencryptAuthToken(accountId: string, token: StoredAuthToken, previous: string): Promise<void> {
    await this.db.updateTable('twilio_auth_tokens').set({ token_ciphertext: token.ciphertext, token_digest: token.digest })
      .where('account_id', '=', accountId).where('token_ciphertext', '=', previous).execute();
  }

  async findAuthTokenAccount(tokenDigest: string, now: number): Promise<string | undefined> {
    const current = await this.db.selectFrom('twilio_auth_tokens').select('account_id').where('token_digest', '=', tokenDigest).executeTakeFirst();
    if (current) return current.account_id;
    const previous = await this.db.selectFrom('twilio_auth_tokens').select('account_id')
      .where('previous_token_digest', '=', tokenDigest).where('previous_valid_until', '>', now).executeTakeFirst();
    return previous?.account_id;
  }

  async lockStart(key: string, now: number, until: number): Promise<boolean> {
    // Race gate: the insert, or the takeover of a lock left by a start that died, succeeds for one request only.
    const taken = await this.db.insertInto('twilio_start_locks').values({ key, expires_at: until })
      .onConflict((oc) => oc.column('key').doUpdateSet({ expires_at: until }).where('twilio_start_locks.expires_at', '<=', now)).executeTakeFirst();
    return Number(taken.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async unlockStart(key: string, until: number): Promise<void> {
    await this.db.deleteFrom('twilio_start_locks').where('key', '=', key).where('expires_at', '=', until).execute();
  }

  async listAuthTokens(): Promise<Array<{ accountId: string; tokenCiphertext: string; tokenDigest: string | null }>> {
    const rows = await this.db.selectFrom('twilio_auth_tokens').select(['account_id', 'token_ciphertext', 'token_digest']).execute();
    return rows.map((r) => ({ accountId: r.account_id, tokenCiphertext: r.token_ciphertext, tokenDigest: r.token_digest }));
  }
}
