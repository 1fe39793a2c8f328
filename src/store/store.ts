// The one storage contract. Services depend on this interface only; the Kysely implementation
// serves SQLite (and PostgreSQL) behind it, and test/store/ runs one conformance suite against each.
import type { Autofill } from '../domain/autofill.js';
import type { LocaleText } from '../domain/template-locales.js';
import type { ApplicationRecord } from '../domain/application-rules.js';
import type { Channel, DeliveryStatus } from '../domain/channels.js';
import type { PinType } from '../domain/pin-generation.js';
import type { AuditAppend, AuditStore } from './audit-store.js';
import type { PurgeLimits } from './purge-batches.js';
import type { SecurityStore } from './security-store.js';
import type { RiskStore, RiskWrite } from './risk-store.js';
import type { RouteStore } from './route-store.js';
import type { EventStore } from './event-store.js';
import type { ConsoleStore } from './console-store.js';
import type { TwilioEventDraft, TwilioStore, TwilioVerificationRow } from './twilio-store.js';
import type { PreludeStore } from './prelude-store.js';
import type { VonageStore } from './vonage-store.js';
import type { IdempotencyStore } from './idempotency-store.js';
import type { TestNumberStore } from './test-number-store.js';
import type { WorkflowStepClaim, WorkflowStore } from './workflow-store.js';
import type { DeliveryRequest } from './delivery-request.js';
import type { BudgetCharge } from '../domain/budgets.js';
import type { Price } from '../domain/prices.js';
import type { BudgetStore } from './budget-store.js';
import type { PriceStore, MessagePriceInput } from './price-store.js';
import type { FactorStore } from './factor-store.js';

export type { DeliveryRequest } from './delivery-request.js';

export { CHANNELS } from '../domain/channels.js';
export type { Channel, DeliveryStatus } from '../domain/channels.js';
export type { ApplicationConfiguration, ApplicationRecord } from '../domain/application-rules.js';

/**
 * The database could not be reached or did not answer in time (TWOFA_DATABASE_TIMEOUT), and what the
 * request wrote was not committed: it is safe to try again, so it is answered 503 with Retry-After.
 * A failure after which a write may or may not have committed (the answer to a COMMIT, or to a
 * statement that commits by itself, lost on the way) is not one of these: it stays an error (500).
 */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

/**
 * A claim of which one statement failed, possibly after leasing rows it never handed over (its answer
 * was lost with the connection). `claimed` is what the other statements did hand over: the caller
 * delivers it, then gives back what it holds but is not delivering once the database answers again.
 */
export class IncompleteClaimError<T> extends Error {
  constructor(readonly claimed: T[], cause: unknown) {
    super(`claim incomplete: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'IncompleteClaimError';
  }
}

export interface AccountRecord {
  id: string;
  name: string;
  createdAt: number;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  accountName: string;
  keyPrefix: string;
  scopes: string[];
  label: string | null;
  createdAt: number;
  revokedAt: number | null;
}

export interface RegionalOptions {
  indiaDlt?: { principalEntityId: string; contentTemplateId?: string; teleMarketerId?: string };
}

interface TemplateBase {
  id: string;
  accountId: string;
  applicationId: string;
  pinType: PinType;
  pinLength: number;
  createdAt: number;
  updatedAt: number;
}

export interface SmsVoiceTemplateRecord extends TemplateBase {
  kind: 'sms_voice';
  messageText: string;
  senderId: string | null;
  language: string;
  voiceName: string | null;
  repeatDtmf: string | null;
  speechRate: number | null;
  regional: RegionalOptions | null;
  /** SMS autofill lines (WebOTP / iOS origin-bound line, Android app hash); absent or null: none. */
  autofill?: Autofill | null;
  /** Texts per locale (domain/template-locales.ts), picked at delivery; absent or empty: messageText only. */
  texts?: LocaleText[];
  /** A name the template is known by (Vonage's templates, Twilio's FriendlyName); absent or null: none. */
  name?: string | null;
  /** The template a Vonage start without template_id sends with (at most one per application). */
  isDefault?: boolean;
}

export interface EmailMessageTemplateRecord extends TemplateBase {
  kind: 'email';
  emailTemplateId: number;
  from: string | null;
  landingPageId: string | null;
}

export type MessageTemplateRecord = SmsVoiceTemplateRecord | EmailMessageTemplateRecord;

export interface EmailTemplateRecord {
  id: number;
  accountId: string;
  name: string;
  from: string | null;
  subject: string;
  html: string | null;
  text: string | null;
  createdAt: number;
  updatedAt: number;
}

export type EmailTemplateFields = Pick<EmailTemplateRecord, 'name' | 'from' | 'subject' | 'html' | 'text'>;

export interface PinRecord {
  id: string;
  accountId: string;
  applicationId: string;
  messageId: string;
  channel: Channel;
  destination: string;
  pinHash: string;
  pinCiphertext: string | null;
  attemptsLeft: number;
  allowMultipleVerifications: boolean;
  createdAt: number;
  expiresAt: number;
  verifiedAt: number | null;
  lockedAt: number | null;
  deliveryStatus: DeliveryStatus;
  deliveryError: string | null;
  sentAt: number | null;
  sendCount: number;
  deliveryTransport: string | null;
  providerMessageId: string | null;
  deliveredAt: number | null;
  /** Sent to one of the account's test numbers: nothing is delivered, the fixed code verifies, statistics keep it apart. */
  testNumber: boolean;
}

export type DeliveryEventKind = 'queued' | 'sent' | 'delivered' | 'undelivered' | 'retried' | 'failed' | 'cancelled';

export interface DeliveryEvent {
  at: number;
  event: DeliveryEventKind;
  channel: Channel | null;
  transport: string | null;
  providerMessageId: string | null;
  error: string | null;
}

/** A provider's receipt, as the store matches it to the message it concerns. */
export interface ReceiptInput {
  transport: string;
  providerMessageId: string;
  status: 'delivered' | 'undelivered';
  error?: string;
  at: number;
  /** What the provider says the message cost; recorded by the price store (Store.prices.reportProviderPrice). */
  price?: Price;
}

/** The message a delivery receipt names: a PIN's first message, or a later one (a resend, a failover). */
export interface ReceiptMessage {
  pinId: string;
  accountId: string;
  channel: Channel;
  /** What it was queued with, its skip list among it. */
  request: DeliveryRequest;
}

/** How a receipt is applied (see Store.recordReceipt). */
export interface ReceiptOptions {
  /** The server's time: the PIN events are stamped with it, and only a PIN live at it is queued again. Default: the receipt's time. */
  now?: number;
  /**
   * The caller's decision that the message of an undelivered receipt goes again, with this request
   * (service/delivery-tracking.ts makes it from the channel's failover route: the same placeholders,
   * the members already tried to skip). The store queues it only while its guards hold.
   */
  requeue?: DeliveryRequest;
}

/** Who took a message: the transport, the provider's id for it, and what it cost (recorded in the same transaction). */
export interface AcceptedMessage {
  transport: string;
  providerMessageId?: string | undefined;
  price?: MessagePriceInput;
}

export interface OutboxRecord {
  id: string;
  pinId: string;
  accountId: string;
  channel: Channel;
  request: DeliveryRequest;
  attempts: number;
  createdAt: number;
  /** The PIN as read with the claim, where that saves a round trip per message (PostgreSQL); else read at delivery. */
  pin?: PinRecord;
}

/** A limit to consume atomically together with a write: at most `limit` hits in any `windowMs`. */
export interface RateLimitCheck {
  key: string;
  limit: number;
  windowMs: number;
}

export type RateLimitOutcome =
  /** `nextAllowedAt`: per limit key, when its next hit will be allowed (the request's hit counted); `now` while there is room. */
  | {
    allowed: true; nextAllowedAt?: Record<string, number>;
    /** Per budget charge key (NewPin.budget, queueResend's `budget`): the period's spend with this send's counted, micro-units. */
    budgetSpent?: Record<string, number>;
  }
  | { allowed: false; key: string; retryAfterMs: number };

/** What one verification request did (Store.verifyPinAttempt). */
export type VerifyAttempt =
  /** A limit refused the request before any attempt was counted. */
  | { kind: 'refused'; outcome: RateLimitOutcome & { allowed: false } }
  /** No attempt could be counted (expired, locked, out of attempts, verified): the PIN as it is now. */
  | { kind: 'ended'; pin: PinRecord | undefined }
  /** An attempt was counted; `pin` as after it. `verified`: this request verified the PIN (won the race). */
  | { kind: 'counted'; pin: PinRecord; matched: boolean; verified: boolean };

/** `audited`: the store appended the attempt's audit entry itself, in the transaction that counted it (SQLite). */
export type AuditedVerifyAttempt = VerifyAttempt & { audited: boolean };

/**
 * A dialect's own verification of the PIN (Twilio's Verification), ended by the attempt that
 * verifies the PIN: moved from pending to approved, with `approved` queued for the dialect's
 * webhooks, in the attempt's own transaction. No crash between the engine's commit and the
 * dialect's can then leave a verified PIN whose verification never reported it.
 */
export interface DialectVerification {
  approved: TwilioEventDraft;
}

/**
 * A dialect's own verification started by the PIN (Twilio's Verification: its row with its first
 * send, and `started` for its webhooks), written in the PIN's own transaction, only if the PIN is.
 */
export interface DialectStart {
  twilio: TwilioVerificationRow;
  started?: TwilioEventDraft;
}

/** The PIN a verification names: its id and account, and its hash when the caller already read it. */
export type PinToVerify = Pick<PinRecord, 'id' | 'accountId'> & Partial<Pick<PinRecord, 'pinHash'>>;

export interface NewPin {
  pin: Omit<PinRecord, 'verifiedAt' | 'lockedAt' | 'deliveryError' | 'sentAt' | 'sendCount' | 'deliveryTransport' | 'providerMessageId' | 'deliveredAt' | 'testNumber'> & {
    /** ISO 3166-1 alpha-2 country of a phone destination, for the console's statistics. */
    country?: string | null;
    /** A PIN to one of the account's test numbers (no outbox row comes with it). */
    testNumber?: boolean;
    /** The summary of the risk assessment it is sent under (JSON of domain/risk-score.ts's RiskSummary), which its events carry. */
    risk?: string;
  };
  /** Absent when the channel has no transport: the PIN is stored, nothing is queued. */
  outbox?: { id: string; request: DeliveryRequest };
  /** The dialect verification the PIN starts (the in-memory store keeps no dialect rows). */
  dialect?: DialectStart;
  /** The risk score's hits and decision of this send, written with the PIN or, if a limit refuses it, not at all. */
  risk?: RiskWrite;
  /**
   * The budget caps the send is charged against (domain/budgets.ts), consumed in the PIN's own
   * write like the limits: when one would pass its cap the outcome is a refusal naming its key (and
   * retry after the period ends), and nothing is written.
   */
  budget?: BudgetCharge[];
}

export interface VerificationRow {
  destination: string;
  verifiedAt: number | null;
  sentAt: number | null;
}

export interface Store {
  /** `memory`: the in-memory store of the services' unit tests (src/store/memory/). */
  readonly dialect: 'sqlite' | 'postgres' | 'memory';
  /** Webhook subscriptions and the event outbox (events are queued by the methods below, in their transactions). */
  readonly events: EventStore;
  /** Anti-fraud settings, breaker blocks and conversion counters (src/store/security-store.ts). */
  readonly security: SecurityStore;
  /** The risk score's settings, counters and recorded decisions (src/store/risk-store.ts). */
  readonly risk: RiskStore;
  /** Routes' conversion counters and the applications' senders per country (src/store/route-store.ts). */
  readonly routes: RouteStore;
  /** The hash-chained audit log (src/store/audit-store.ts). */
  readonly audit: AuditStore;
  /** The console's queries: paged PIN search, statistics aggregated in the database, the account's API keys. */
  readonly console: ConsoleStore;
  /** The Twilio Verify dialect's Service settings and Verification states (src/store/twilio-store.ts). */
  readonly twilio: TwilioStore;
  /** The Prelude Verify dialect's account settings (src/store/prelude-store.ts). */
  readonly prelude: PreludeStore;
  /** The Vonage Verify dialect's applications and their public keys (src/store/vonage-store.ts). */
  readonly vonage: VonageStore;
  /** Idempotency-Key requests and their answers (src/store/idempotency-store.ts); purged with the rest by `purge`. */
  readonly idempotency: IdempotencyStore;
  /** Each account's test numbers (src/store/test-number-store.ts). */
  readonly testNumbers: TestNumberStore;
  /** Applications' workflows and the steps of the PINs sent under them (src/store/workflow-store.ts). */
  readonly workflows: WorkflowStore;
  /** Budgets of accounts and applications and what their periods spent (src/store/budget-store.ts). */
  readonly budgets: BudgetStore;
  /** The prices of the messages sent, and the spend they sum to (src/store/price-store.ts). */
  readonly prices: PriceStore;
  /** Twilio Verify's Entities, Factors (TOTP, passkeys) and Challenges (src/store/factor-store.ts). */
  readonly factors: FactorStore;
  close(): Promise<void>;
  /** Liveness of the database, for /readyz and `twofa doctor`. */
  ping(): Promise<void>;

  // Accounts and API keys
  findOrCreateAccount(name: string, id: string, now: number): Promise<AccountRecord>;
  insertApiKey(key: { id: string; accountId: string; keyHash: string; keyPrefix: string; scopes: string[]; label: string | null; createdAt: number }): Promise<void>;
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /** Marks the key with this id revoked; false when no active key has it. Never by prefix: several keys may share one. */
  revokeApiKey(id: string, now: number): Promise<boolean>;
  countActiveApiKeys(): Promise<number>;

  // Applications
  insertApplication(app: ApplicationRecord): Promise<void>;
  getApplication(accountId: string, id: string): Promise<ApplicationRecord | undefined>;
  listApplications(accountId: string): Promise<ApplicationRecord[]>;
  updateApplication(app: ApplicationRecord): Promise<void>;

  // 2FA message templates (SMS/voice and email)
  insertMessageTemplate(template: MessageTemplateRecord): Promise<void>;
  getMessageTemplate(accountId: string, applicationId: string, id: string): Promise<MessageTemplateRecord | undefined>;
  listMessageTemplates(accountId: string, applicationId: string): Promise<MessageTemplateRecord[]>;
  /** Writes every field but the locale texts, which change only through replaceTemplateTexts. */
  updateMessageTemplate(template: MessageTemplateRecord): Promise<void>;
  /**
   * Replaces an SMS/voice template's locale texts if they are still `expected` (compare-and-set, with
   * updatedAt); false when they changed meanwhile or the template is gone.
   */
  replaceTemplateTexts(accountId: string, applicationId: string, id: string, expected: readonly LocaleText[], next: readonly LocaleText[], now: number): Promise<boolean>;
  /** Deletes a message template; PINs that named it can no longer be delivered (the composer says so). */
  deleteMessageTemplate(accountId: string, applicationId: string, id: string): Promise<boolean>;

  // Email templates (the "web portal" resource emailTemplateId refers to)
  insertEmailTemplate(accountId: string, fields: EmailTemplateFields, now: number): Promise<EmailTemplateRecord>;
  getEmailTemplate(accountId: string, id: number): Promise<EmailTemplateRecord | undefined>;
  listEmailTemplates(accountId: string): Promise<EmailTemplateRecord[]>;
  updateEmailTemplate(accountId: string, id: number, fields: EmailTemplateFields, now: number): Promise<EmailTemplateRecord | undefined>;
  deleteEmailTemplate(accountId: string, id: number): Promise<boolean>;
  /** Ids of 2FA email messages that reference the template (it cannot be deleted while any do). */
  messagesUsingEmailTemplate(accountId: string, id: number): Promise<string[]>;

  // PINs
  /**
   * Consumes the limits and, only if all allow it, writes the PIN with its first message, in one
   * transaction. `audit`: the audit entry of the outcome; a store that can append it in that same
   * transaction (SQLite: one commit for the send and its entry) does so and answers `audited: true`,
   * else the caller appends it.
   */
  createPin(input: NewPin, limits: RateLimitCheck[], now: number, audit?: (outcome: RateLimitOutcome) => AuditAppend): Promise<RateLimitOutcome & { audited?: true }>;
  /**
   * Consumes the limits and, only if all allow it, queues a resend of a PIN that has not ended, on
   * `channel` (an SMS PIN may be resent by voice). `outbox` absent: nothing to queue (channel off).
   * `workflowStep`: the claimed workflow step this resend is, marked sent in the same transaction; a
   * claim lost meanwhile answers `ended` and writes nothing.
   */
  queueResend(pinId: string, channel: Channel, outbox: { id: string; request: DeliveryRequest } | undefined, limits: RateLimitCheck[], now: number, workflowStep?: WorkflowStepClaim, budget?: BudgetCharge[]): Promise<RateLimitOutcome | { allowed: true; ended: true }>;
  getPin(accountId: string, pinId: string): Promise<PinRecord | undefined>;
  /** The PIN and its application (undefined if deleted), for a verification: one round trip on PostgreSQL. Durable as getPin. */
  getPinToVerify(accountId: string, pinId: string): Promise<{ pin: PinRecord; application: ApplicationRecord | undefined } | undefined>;
  /**
   * Resolves once every commit made so far is durable. createPin, queueResend, verifyPinAttempt,
   * getPin and audit.append return without waiting for the disk (SQLite: one commit per turn of the
   * event loop and one fsync shared by the requests in flight, sqlite/hot-path.ts and group-commit.ts;
   * PostgreSQL: createPin commits asynchronously, made durable by a later synchronous commit,
   * postgres/deferred-flushes.ts), so a service that used them awaits this once before it answers:
   * nothing is acknowledged, and nothing read is shown, before it would survive a power cut. Every
   * other method waits by itself.
   */
  durable(): Promise<void>;
  /** Consumes the limits atomically without any other write (verifyPinLimit). */
  consumeRateLimits(limits: RateLimitCheck[], now: number): Promise<RateLimitOutcome>;
  /** When one more hit on `check` would be allowed (`now` while there is room), counting nothing. */
  peekRateLimit(check: RateLimitCheck, now: number): Promise<number>;
  /**
   * One verification request, in one transaction: consumes `limits` (verifyPinLimit) and, if they
   * allow it, counts an attempt, compares the candidate with `matches`, then marks the PIN verified
   * or, after its last wrong attempt, locks it. The race gates are single conditional statements:
   * the attempt is an UPDATE ... RETURNING of a PIN that is live (not expired, not locked, attempts
   * left, not verified unless multiple verifications are allowed), so concurrent requests can neither
   * exceed pinAttempts nor both verify a single-use PIN; the verified mark is guarded again by
   * `verified_at IS NULL`.
   *
   * `pin.pinHash`, when the caller read it (it never changes), lets a store tell a wrong candidate
   * before counting: PostgreSQL then counts it in one statement without a transaction.
   *
   * `audit` makes the audit entry of an outcome. SQLite appends it in the same transaction (one
   * commit for the decision and its entry) and answers `audited: true`; PostgreSQL answers
   * `audited: false` and the caller appends it (batched with other requests' entries).
   *
   * `dialect`: the dialect verification the attempt ends when it verifies the PIN, in the same
   * transaction (the in-memory store keeps no dialect rows).
   */
  verifyPinAttempt(pin: PinToVerify, now: number, limits: RateLimitCheck[], matches: (pinHash: string) => boolean, audit: (attempt: VerifyAttempt) => AuditAppend, dialect?: DialectVerification): Promise<AuditedVerifyAttempt>;
  listVerifications(accountId: string, applicationId: string, destination: string, filter: { verified?: boolean; sent?: boolean }, limit: number): Promise<VerificationRow[]>;

  // Delivery outbox. A PIN's first message is state on the PIN's row; later ones (resends, failover
  // requeues) are rows of their own. The methods below take both (a message is named by its id and its PIN's).
  /**
   * Leases up to `max` due messages until `leaseUntil` to `holder` (the claiming node's TWOFA_NODE_ID),
   * recorded so that the node can renew the leases and take them back when it restarts.
   */
  claimOutbox(now: number, leaseUntil: number, max: number, holder?: string): Promise<OutboxRecord[]>;
  /**
   * Extends to `leaseUntil` the leases `holder` still has under the claims that gave it these messages
   * (`attempts` as claimed); a message claimed since by anyone is left alone. Answers how many were extended.
   */
  renewOutbox(messages: { id: string; pinId: string; attempts: number }[], holder: string, leaseUntil: number): Promise<number>;
  /**
   * Gives back every pending message leased to `holder` but those of `keep` (the messages it is
   * delivering): what a node held when it died, taken back when it starts again, or what a claim
   * leased to it without the node ever reading the answer (the database went away meanwhile).
   */
  releaseHeldOutbox(holder: string, now: number, keep?: { id: string; pinId: string }[]): Promise<number>;
  /**
   * Records that a transport accepted the message (`accepted`: which one, and the provider's id for it).
   * `audit`: the outcome's audit entry. A store that can append it in the transaction of the outcome
   * (SQLite: one commit for a batch of outcomes and their entries) does so and answers `audited: true`,
   * else the caller appends it.
   */
  completeOutbox(id: string, pinId: string, now: number, accepted?: AcceptedMessage, audit?: AuditAppend): Promise<{ audited: boolean }>;
  retryOutbox(id: string, pinId: string, nextAttemptAt: number, error: string, now: number): Promise<void>;
  /** Records that the message failed for good or was cancelled; `audit` as for completeOutbox. */
  failOutbox(id: string, pinId: string, error: string, now: number, state: 'failed' | 'cancelled', audit?: AuditAppend): Promise<{ audited: boolean }>;
  /** Gives leased messages back (graceful shutdown) so another worker takes them at once. */
  releaseOutbox(messages: { id: string; pinId: string }[], now: number): Promise<void>;
  countPendingOutbox(): Promise<number>;
  /** When the API accepted the oldest message still waiting for delivery (queued or awaiting a retry); undefined when none waits. */
  oldestPendingOutboxAt(): Promise<number | undefined>;
  /** How many nodes share this database now (PostgreSQL: connected as `twofa <node id>`; SQLite: this one), for rates shared among them. */
  countLiveNodes(): Promise<number>;
  /** The message a receipt names, by its transport and the provider's id for it; undefined when none (yet). */
  findReceiptMessage(receipt: Pick<ReceiptInput, 'transport' | 'providerMessageId'>): Promise<ReceiptMessage | undefined>;
  /**
   * Applies a delivery receipt to the message it names; undefined when no message matches. With
   * `requeue` (the caller decided the message goes again), an undelivered receipt queues it in the
   * same transaction, guarded: only when the receipt is the first word on the PIN's latest message
   * (the PIN still names that message, and the receipt is no repetition), the PIN is live at `now`
   * and nothing else is queued for it. `requeued` says whether it was.
   */
  recordReceipt(receipt: ReceiptInput, options?: ReceiptOptions): Promise<{ pinId: string; accountId: string; requeued: boolean } | undefined>;
  /** The delivery history of one PIN of the account, oldest first. */
  listDeliveryEvents(accountId: string, pinId: string): Promise<DeliveryEvent[]>;

  // Housekeeping
  /**
   * Erases ciphertexts of expired PINs, deletes PINs expired longer than the retention, stale
   * rate-limit buckets and idempotency keys past their window; each step in batches (`limits`, by default PURGE_LIMITS), leaving what is
   * beyond them to the next run.
   */
  purge(now: number, retentionMs: number, limits?: PurgeLimits): Promise<{ erased: number; deleted: number }>;
}
