// The Store over Kysely: the same queries for SQLite and PostgreSQL. Dialect differences are kept
// to the few marked places (row locking for outbox claims and rate-limit keys, NOTIFY of new outbox
// rows).
import { randomUUID } from 'node:crypto';
import { CompiledQuery, sql, type InferResult, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Autofill } from '../domain/autofill.js';
import type { LocaleText } from '../domain/template-locales.js';
import { isDeliverable } from '../domain/pin-lifecycle.js';
import type { PinType } from '../domain/pin-generation.js';
import { PIN_RECORD_COLUMNS, type Database, type MessageTemplatesTable, type PinRecordRow, type PinsTable, type EmailTemplatesTable, type ApplicationsTable } from './schema.js';
import type { ExternalRateLimiter, RateLimiter } from './rate-limiter.js';
import * as pgHot from './postgres/hot-statements.js';
import { RateLimitRefusal } from './postgres/hot-statements.js';
import { COMMIT_BARRIER, DeferredFlushes } from './postgres/deferred-flushes.js';
import { KyselyEventStore } from './event-store.js';
import { PURGE_LIMITS, type PurgeLimits } from './purge-batches.js';
import { purgeEnded } from './purge.js';
import { DatabaseRateLimits } from './limits.js';
import { KyselyIdempotencyStore } from './idempotency-store.js';
import { KyselyTestNumberStore } from './test-number-store.js';
import { KyselyAuditStore } from './audit-store.js';
import { KyselySecurityStore } from './security-store.js';
import { KyselyRiskStore, riskWriteParameters } from './risk-store.js';
import { KyselyRouteStore } from './route-store.js';
import { KyselyConsoleStore } from './console-store.js';
import { KyselyTwilioStore } from './twilio-store.js';
import { KyselyPreludeStore } from './prelude-store.js';
import { KyselyVonageStore } from './vonage-store.js';
import { KyselyFactorStore } from './factor-store.js';
import { KyselyWorkflowStore, markWorkflowStepSent, WorkflowClaimLost, type WorkflowStepClaim } from './workflow-store.js';
import type { WorkflowStep } from '../domain/workflows.js';
import { PreparedQuery } from './prepared-query.js';
import { WriteBatcher } from './write-batcher.js';
import type { SqliteDurability } from './sqlite/group-commit.js';
import type { SqliteHotPath } from './sqlite/hot-path.js';
import { SqliteAuditStatements } from './sqlite/audit-statements.js';
import { SqliteLimitStatements } from './sqlite/limit-statements.js';
import { SqliteBudgetStatements } from './sqlite/budget-statements.js';
import type { BudgetCharge } from '../domain/budgets.js';
import { KyselyBudgetStore } from './budget-store.js';
import { KyselyPriceStore, type MessagePriceInput } from './price-store.js';
import { SqlitePinStatements, type AttemptRows } from './sqlite/pin-statements.js';
import { SqliteEventStatements } from './sqlite/event-statements.js';
import { SqliteTwilioStatements } from './sqlite/twilio-statements.js';
import { SqliteRiskStatements } from './sqlite/risk-statements.js';
import { SqliteOutboxStatements, type OutboxOutcome } from './sqlite/outbox-statements.js';
import { ConfigCache, UNCACHED, type ConfigReader, type ConfigVersion } from './config-cache.js';
import type { PostgresConfigVersion } from './postgres/config-version.js';
import type {
  AcceptedMessage, AccountRecord, ApiKeyRecord, DeliveryEvent, DeliveryEventKind, ReceiptInput, ApplicationRecord, Channel, DeliveryRequest, DeliveryStatus, EmailTemplateFields,
  DialectVerification, EmailTemplateRecord, MessageTemplateRecord, NewPin, OutboxRecord, PinRecord, PinToVerify, RateLimitCheck, RateLimitOutcome,
  ReceiptMessage, ReceiptOptions, Store, VerificationRow, VerifyAttempt, AuditedVerifyAttempt,
} from './store.js';
import { IncompleteClaimError } from './store.js';
import type { AuditAppend } from './audit-store.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The PostgreSQL channel on which a send's transaction announces a new outbox row to every node. */
export const OUTBOX_CHANNEL = 'twofa_outbox';

/** Something listening that must be stopped (a LISTEN connection). */
export interface Subscription {
  close(): Promise<void>;
}

export interface KyselyStoreOptions {
  /** Counts the rate limits instead of the database (Redis). The store neither opens nor closes it. */
  rateLimiter?: ExternalRateLimiter;
  /** SQLite group commit: the deferred use of the connection and the wait for durability (sqlite/group-commit.ts). */
  durability?: SqliteDurability;
  /** Calls `onQueued` whenever any node commits a new outbox row (PostgreSQL LISTEN); absent on SQLite. */
  listen?: (onQueued: () => void) => Subscription;
  /** Changes whenever configuration may have changed (SQLite); absent: configuration is read uncached. */
  configVersion?: ConfigVersion;
  /** SQLite: the connection on which the verify path runs its own prepared statements (sqlite/hot-path.ts). */
  sqlite?: SqliteHotPath;
  /**
   * PostgreSQL: the configuration cache's version (postgres/config-version.ts) and the LISTEN on the
   * configuration channel that keeps it current, opened on the cache's first use.
   */
  postgresConfig?: { versions: PostgresConfigVersion; listen: () => Subscription };
}

/** The queries of the request paths (authenticate, send, verify), compiled once per store. */
function hotQueries() {
  return {
    apiKeyByHash: new PreparedQuery<{ keyHash: string }, ApiKeyRow>((db: Kysely<Database>, p) => apiKeySelect(db).where('api_keys.key_hash', '=', p('keyHash'))),
    application: new PreparedQuery<{ id: string; accountId: string }, Selectable<ApplicationsTable>>((db: Kysely<Database>, p) =>
      db.selectFrom('applications').selectAll().where('id', '=', p('id')).where('account_id', '=', p('accountId'))),
    messageTemplate: new PreparedQuery<{ id: string; applicationId: string; accountId: string }, Selectable<MessageTemplatesTable>>((db: Kysely<Database>, p) =>
      db.selectFrom('message_templates').selectAll().where('id', '=', p('id')).where('application_id', '=', p('applicationId')).where('account_id', '=', p('accountId'))),
    pin: new PreparedQuery<{ id: string; accountId: string }, PinRecordRow>((db: Kysely<Database>, p) =>
      db.selectFrom('pins').select(PIN_RECORD_COLUMNS).where('id', '=', p('id')).where('account_id', '=', p('accountId')), { prepareByName: true }),
    // Second race gate: without multiple verifications only the request that flips verified_at wins.
    markVerified: new PreparedQuery<{ id: string; now: number }, never>((db: Kysely<Database>, p) =>
      db.updateTable('pins').set((eb) => ({ verified_at: eb.fn.coalesce('verified_at', eb.val(p('now'))), pin_ciphertext: null })).where('id', '=', p('id')), { prepareByName: true }),
    markVerifiedOnce: new PreparedQuery<{ id: string; now: number }, never>((db: Kysely<Database>, p) =>
      db.updateTable('pins').set((eb) => ({ verified_at: eb.fn.coalesce('verified_at', eb.val(p('now'))), pin_ciphertext: null }))
        .where('id', '=', p('id')).where('verified_at', 'is', null), { prepareByName: true }),
    lock: new PreparedQuery<{ id: string; now: number }, never>((db: Kysely<Database>, p) =>
      db.updateTable('pins').set({ locked_at: p('now'), pin_ciphertext: null })
        .where('id', '=', p('id')).where('attempts_left', '=', 0).where('locked_at', 'is', null), { prepareByName: true }),
    insertOutbox: new PreparedQuery<Omit<Selectable<Database['outbox']>, 'lease_holder'>, never>((db: Kysely<Database>, p) => db.insertInto('outbox').values({
      id: p('id'), pin_id: p('pin_id'), account_id: p('account_id'), channel: p('channel'), request: p('request'), state: p('state'),
      attempts: p('attempts'), next_attempt_at: p('next_attempt_at'), lease_until: p('lease_until'), last_error: p('last_error'),
      created_at: p('created_at'), updated_at: p('updated_at'), transport: p('transport'), provider_message_id: p('provider_message_id'),
    })),
    insertEvent: new PreparedQuery<Selectable<Database['delivery_events']>, never>((db: Kysely<Database>, p) => db.insertInto('delivery_events').values({
      id: p('id'), pin_id: p('pin_id'), account_id: p('account_id'), at: p('at'), event: p('event'), channel: p('channel'),
      transport: p('transport'), provider_message_id: p('provider_message_id'), error: p('error'),
    })),
    // An outcome of an outbox row, in the history of its PIN (one statement: the row gives PIN, account and channel).
    insertOutboxEvent: new PreparedQuery<{ id: string; outboxId: string; at: number; event: DeliveryEventKind; transport: string | null; providerMessageId: string | null; error: string | null }, never>((db: Kysely<Database>, p) =>
      db.insertInto('delivery_events')
        .columns(['id', 'pin_id', 'account_id', 'at', 'event', 'channel', 'transport', 'provider_message_id', 'error'])
        .expression((eb) => eb.selectFrom('outbox').select((o) => [
          o.val(p('id')).as('id'), 'pin_id', 'account_id', o.val(p('at')).as('at'), o.val(p('event')).as('event'), 'channel',
          o.val(p('transport')).as('transport'), o.val(p('providerMessageId')).as('provider_message_id'), o.val(p('error')).as('error'),
        ]).where('id', '=', p('outboxId')))),
    insertOwnMessageEvent: new PreparedQuery<{ id: string; pinId: string; at: number; event: DeliveryEventKind; transport: string | null; providerMessageId: string | null; error: string | null }, never>((db: Kysely<Database>, p) =>
      db.insertInto('delivery_events')
        .columns(['id', 'pin_id', 'account_id', 'at', 'event', 'channel', 'transport', 'provider_message_id', 'error'])
        .expression((eb) => eb.selectFrom('pins').select((o) => [
          o.val(p('id')).as('id'), 'id as pin_id', 'account_id', o.val(p('at')).as('at'), o.val(p('event')).as('event'), 'channel',
          o.val(p('transport')).as('transport'), o.val(p('providerMessageId')).as('provider_message_id'), o.val(p('error')).as('error'),
        ]).where('id', '=', p('pinId')))),
  };
}

/** A message as a claim leased it: `own` when it is a PIN's first message (on the PIN's row), else an outbox row. */
type ClaimedMessage = OutboxRecord & { dueAt: number; own: boolean };

interface SqliteStatements {
  limits: SqliteLimitStatements;
  pins: SqlitePinStatements;
  audit: SqliteAuditStatements;
  outbox: SqliteOutboxStatements;
  risk: SqliteRiskStatements;
}

export class KyselyStore implements Store, RateLimiter {
  private readonly hot = hotQueries();
  /** Rate limits counted in the database (or by the external limiter). */
  private readonly limits: DatabaseRateLimits;
  /** API keys, applications and templates as last read, while nothing changed them (config-cache.ts). */
  private readonly config: ConfigReader;
  private readonly externalLimiter: ExternalRateLimiter | undefined;
  private readonly subscriptions = new Set<Subscription>();
  /** Webhook subscriptions and the event outbox; the methods below queue events in their own transactions. */
  readonly events: KyselyEventStore;
  /** Anti-fraud settings, breaker blocks and conversion counters. */
  readonly security: KyselySecurityStore;
  readonly risk: KyselyRiskStore;
  readonly routes: KyselyRouteStore;
  /** The hash-chained audit log. */
  readonly audit: KyselyAuditStore;
  /** The console's read queries and the account-scoped API key operations. */
  readonly console: KyselyConsoleStore;
  /** The Twilio Verify dialect's own rows. */
  readonly twilio: KyselyTwilioStore;
  readonly prelude: KyselyPreludeStore;
  readonly vonage: KyselyVonageStore;
  readonly idempotency: KyselyIdempotencyStore;
  readonly testNumbers: KyselyTestNumberStore;
  /** Applications' workflows and the steps of the PINs sent under them. */
  readonly workflows: KyselyWorkflowStore;
  readonly budgets: KyselyBudgetStore;
  readonly prices: KyselyPriceStore;
  readonly factors: KyselyFactorStore;

  /** PostgreSQL: the hot statements committed without waiting for the flush, made durable by durable(). */
  private readonly flushes: DeferredFlushes | undefined;

  /** SQLite's prepared statements of the verify and delivery paths, prepared on first use (after the migrations). */
  private sqliteStatements: SqliteStatements | undefined;

  private get sqlite(): SqliteStatements {
    if (this.sqliteStatements) return this.sqliteStatements;
    const hot = this.options.sqlite;
    if (!hot) throw new Error('this SQLite store was opened without its connection (open it with openStore)');
    const limits = new SqliteLimitStatements(hot);
    const audit = new SqliteAuditStatements(hot.connection);
    const events = new SqliteEventStatements(hot.connection, this.options.configVersion);
    const risk = new SqliteRiskStatements(hot);
    const pins = new SqlitePinStatements(hot, limits, audit, events, new SqliteTwilioStatements(hot.connection, events), risk, new SqliteBudgetStatements(hot.connection));
    return (this.sqliteStatements = { limits, pins, audit, outbox: new SqliteOutboxStatements(hot, events, audit), risk });
  }

  constructor(readonly db: Kysely<Database>, readonly dialect: 'sqlite' | 'postgres', private readonly onClose: () => Promise<void>, private readonly options: KyselyStoreOptions = {}) {
    this.externalLimiter = options.rateLimiter;
    this.limits = new DatabaseRateLimits(db, dialect, options.rateLimiter, () => this.sqlite.limits);
    this.config = options.configVersion ? new ConfigCache(options.configVersion) : options.postgresConfig ? new ConfigCache(this.postgresConfigVersion(options.postgresConfig)) : UNCACHED;
    // PostgreSQL reads webhook subscriptions through: whether an event is queued must not depend on
    // how soon a subscription made on another node is announced to this one.
    this.events = new KyselyEventStore(db, dialect, dialect === 'sqlite' ? this.config : UNCACHED);
    this.security = new KyselySecurityStore(db, this.config);
    this.risk = new KyselyRiskStore(db, this.config, dialect === 'sqlite' ? () => this.sqlite.risk : undefined);
    this.routes = new KyselyRouteStore(db, this.config);
    this.flushes = dialect === 'postgres' ? new DeferredFlushes(() => db.executeQuery(CompiledQuery.raw(COMMIT_BARRIER, [Date.now()]))) : undefined;
    // Its commits are synchronous: each makes the hot statements' commits before it durable.
    this.audit = new KyselyAuditStore(db, dialect, (work) => this.deferred(work), (commit) => this.flushes ? this.flushes.synchronous(commit) : commit());
    this.console = new KyselyConsoleStore(db);
    this.twilio = new KyselyTwilioStore(db, dialect, this.events, this.config);
    this.prelude = new KyselyPreludeStore(db);
    this.vonage = new KyselyVonageStore(db);
    this.idempotency = new KyselyIdempotencyStore(db, dialect);
    this.testNumbers = new KyselyTestNumberStore(db, this.config);
    this.workflows = new KyselyWorkflowStore(db, dialect, (work) => this.deferred(work));
    this.budgets = new KyselyBudgetStore(db);
    this.prices = new KyselyPriceStore(db);
    this.factors = new KyselyFactorStore(db, dialect);
  }

  /** The PostgreSQL cache's version function, which starts listening for configuration changes on its first call. */
  private postgresConfigVersion({ versions, listen }: NonNullable<KyselyStoreOptions['postgresConfig']>): ConfigVersion {
    let started = false;
    return () => {
      if (!started) {
        started = true;
        this.subscriptions.add(listen());
      }
      return versions.current();
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    this.subscriptions.clear();
    await this.onClose();
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
    // Sends and verifies cannot be served without the limiter either.
    await this.externalLimiter?.ping();
  }

  /**
   * Calls `onQueued` soon after any node (this one included) queues a message, so that an idle worker
   * starts at once rather than at its next poll. PostgreSQL only (LISTEN/NOTIFY, reconnecting after
   * a drop); on SQLite only this process writes, and it wakes its worker itself, so this is a no-op.
   */
  listenForQueuedMessages(onQueued: () => void): Subscription {
    if (!this.options.listen) return { close: async () => undefined };
    const subscription = this.options.listen(onQueued);
    this.subscriptions.add(subscription);
    return {
      close: async () => {
        this.subscriptions.delete(subscription);
        await subscription.close();
      },
    };
  }

  // --- accounts and API keys ---

  async findOrCreateAccount(name: string, id: string, now: number): Promise<AccountRecord> {
    await this.db.insertInto('accounts').values({ id, name, created_at: now }).onConflict((oc) => oc.column('name').doNothing()).execute();
    const row = await this.db.selectFrom('accounts').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
    return { id: row.id, name: row.name, createdAt: Number(row.created_at) };
  }

  async insertApiKey(key: { id: string; accountId: string; keyHash: string; keyPrefix: string; scopes: string[]; label: string | null; createdAt: number }): Promise<void> {
    await this.db.insertInto('api_keys').values({
      id: key.id, account_id: key.accountId, key_hash: key.keyHash, key_prefix: key.keyPrefix,
      scopes: key.scopes.join(' '), label: key.label, created_at: key.createdAt, revoked_at: null,
    // The same key inserted twice is one key: several nodes starting at once on an empty database all
    // create TWOFA_BOOTSTRAP_API_KEY, and all but the first find it there. (Random keys never collide.)
    }).onConflict((oc) => oc.column('key_hash').doNothing()).execute();
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const postgres = this.options.postgresConfig;
    if (postgres) {
      // Never from the cache: the counter read with the key is what every cached read of the request trusts (postgres/config-version.ts).
      const { key, configVersion } = await pgHot.apiKeyWithConfigVersion<ApiKeyRow>(this.db, keyHash);
      postgres.versions.observe(configVersion);
      return key && toApiKey(key);
    }
    return this.config.get(`key:${keyHash}`, async () => {
      const row = await this.hot.apiKeyByHash.first(this.db, { keyHash });
      return row && toApiKey(row);
    });
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    const rows = await apiKeySelect(this.db).orderBy('api_keys.created_at').execute();
    return rows.map(toApiKey);
  }

  async revokeApiKey(id: string, now: number): Promise<boolean> {
    const result = await this.db.updateTable('api_keys').set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async countActiveApiKeys(): Promise<number> {
    const row = await this.db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number>().as('n')).where('revoked_at', 'is', null).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  // --- applications ---

  async insertApplication(app: ApplicationRecord): Promise<void> {
    await this.db.insertInto('applications').values(fromApplication(app)).execute();
  }

  async getApplication(accountId: string, id: string): Promise<ApplicationRecord | undefined> {
    return this.config.get(`app:${accountId}:${id}`, async () => {
      const row = await this.hot.application.first(this.db, { id, accountId });
      return row && toApplication(row);
    });
  }

  async listApplications(accountId: string): Promise<ApplicationRecord[]> {
    const rows = await this.db.selectFrom('applications').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
    return rows.map(toApplication);
  }

  async updateApplication(app: ApplicationRecord): Promise<void> {
    const { id, account_id, created_at, ...changes } = fromApplication(app);
    void created_at;
    await this.db.updateTable('applications').set(changes).where('id', '=', id).where('account_id', '=', account_id).execute();
  }

  // --- 2FA message templates ---

  async insertMessageTemplate(template: MessageTemplateRecord): Promise<void> {
    await this.db.insertInto('message_templates').values(fromTemplate(template)).execute();
  }

  async getMessageTemplate(accountId: string, applicationId: string, id: string): Promise<MessageTemplateRecord | undefined> {
    return this.config.get(`template:${accountId}:${applicationId}:${id}`, async () => {
      const row = await this.hot.messageTemplate.first(this.db, { id, applicationId, accountId });
      return row && toTemplate(row);
    });
  }

  async listMessageTemplates(accountId: string, applicationId: string): Promise<MessageTemplateRecord[]> {
    const rows = await this.db.selectFrom('message_templates').selectAll()
      .where('application_id', '=', applicationId).where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
    return rows.map(toTemplate);
  }

  async updateMessageTemplate(template: MessageTemplateRecord): Promise<void> {
    // The locale texts change only through replaceTemplateTexts: a stale record must not undo them.
    const { id, account_id, application_id, created_at, kind, locale_texts, ...changes } = fromTemplate(template);
    void created_at; void kind; void locale_texts;
    await this.db.updateTable('message_templates').set(changes)
      .where('id', '=', id).where('application_id', '=', application_id).where('account_id', '=', account_id).execute();
  }

  async replaceTemplateTexts(accountId: string, applicationId: string, id: string, expected: readonly LocaleText[], next: readonly LocaleText[], now: number): Promise<boolean> {
    // Compare-and-set on the whole JSON: of two concurrent edits of one template's texts, the one that
    // read what the other wrote over fails here and reads again (service/template-texts.ts).
    const before = expected.length === 0 ? null : JSON.stringify(expected);
    const result = await this.db.updateTable('message_templates')
      .set({ locale_texts: next.length === 0 ? null : JSON.stringify(next), updated_at: now })
      .where('id', '=', id).where('application_id', '=', applicationId).where('account_id', '=', accountId).where('kind', '=', 'sms_voice')
      .where((eb) => (before === null ? eb('locale_texts', 'is', null) : eb('locale_texts', '=', before)))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async deleteMessageTemplate(accountId: string, applicationId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('message_templates')
      .where('id', '=', id).where('application_id', '=', applicationId).where('account_id', '=', accountId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  // --- email templates ---

  async insertEmailTemplate(accountId: string, fields: EmailTemplateFields, now: number): Promise<EmailTemplateRecord> {
    const row = await this.db.insertInto('email_templates').values({
      account_id: accountId, name: fields.name, from_address: fields.from, subject: fields.subject, html: fields.html,
      text: fields.text, created_at: now, updated_at: now,
    }).returningAll().executeTakeFirstOrThrow();
    return toEmailTemplate(row);
  }

  async getEmailTemplate(accountId: string, id: number): Promise<EmailTemplateRecord | undefined> {
    return this.config.get(`email-template:${accountId}:${id}`, async () => {
      const row = await this.db.selectFrom('email_templates').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return row && toEmailTemplate(row);
    });
  }

  async listEmailTemplates(accountId: string): Promise<EmailTemplateRecord[]> {
    const rows = await this.db.selectFrom('email_templates').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
    return rows.map(toEmailTemplate);
  }

  async updateEmailTemplate(accountId: string, id: number, fields: EmailTemplateFields, now: number): Promise<EmailTemplateRecord | undefined> {
    const row = await this.db.updateTable('email_templates').set({
      name: fields.name, from_address: fields.from, subject: fields.subject, html: fields.html, text: fields.text, updated_at: now,
    }).where('id', '=', id).where('account_id', '=', accountId).returningAll().executeTakeFirst();
    return row && toEmailTemplate(row);
  }

  async deleteEmailTemplate(accountId: string, id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('email_templates').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async messagesUsingEmailTemplate(accountId: string, id: number): Promise<string[]> {
    const rows = await this.db.selectFrom('message_templates').select('id')
      .where('account_id', '=', accountId).where('kind', '=', 'email').where('email_template_id', '=', id).execute();
    return rows.map((r) => r.id);
  }

  // --- PINs ---

  async createPin(input: NewPin, limits: RateLimitCheck[], now: number, audit?: (outcome: RateLimitOutcome) => AuditAppend): Promise<RateLimitOutcome & { audited?: true }> {
    const budget = input.budget ?? [];
    if (this.dialect === 'postgres') {
      const external = await this.limits.consumeExternally(limits, now);
      if (!external.allowed) return external;
      const p = input.pin;
      const create = (db: Db, deferFlush: boolean) => pgHot.createPin(db, this.externalLimiter ? [] : limits, now, {
        id: p.id, accountId: p.accountId, applicationId: p.applicationId, messageId: p.messageId, channel: p.channel, destination: p.destination,
        pinHash: p.pinHash, pinCiphertext: p.pinCiphertext, attemptsLeft: p.attemptsLeft, allowMultipleVerifications: p.allowMultipleVerifications,
        createdAt: p.createdAt, expiresAt: p.expiresAt, deliveryStatus: p.deliveryStatus, country: p.country ?? null, testNumber: p.testNumber === true, risk: p.risk ?? null,
      }, input.outbox && { id: input.outbox.id, request: JSON.stringify(input.outbox.request) }, OUTBOX_CHANNEL, deferFlush, riskWriteParameters(input.risk), budget);
      const { dialect } = input;
      return this.budgetRefusable(budget, now, () => this.limits.refusable(limits, now, async () => {
        // A PIN that starts a dialect verification is one transaction with its row (a Twilio start
        // only): the statement, then the row, so the application's bucket is held a round trip longer.
        const created = await this.deferFlush((deferFlush) => dialect
          ? this.db.transaction().execute(async (trx) => {
            const made = await create(trx, deferFlush);
            await this.twilio.insertVerificationIn(trx, dialect.twilio, dialect.started);
            return made;
          })
          : create(this.db, deferFlush));
        const outcome = this.externalLimiter ? external : this.limits.allowedAfter(limits, created.windows, now);
        return budget.length > 0 && outcome.allowed ? { ...outcome, budgetSpent: created.budgetSpent } : outcome;
      }));
    }
    // SQLite: the budget caps, the limits, the PIN with its first message and the audit entry (of the
    // PIN or of its refusal) as one unit on the hot path's prepared statements
    // (sqlite/pin-statements.ts), as verify's. With an external limiter (Redis), its verdict comes first.
    const external = await this.limits.consumeExternally(limits, now);
    if (!external.allowed) {
      if (!audit) return external;
      const { entry, seal } = audit(external);
      await this.audit.append(entry, seal);
      return { ...external, audited: true };
    }
    const p = input.pin;
    const created = await this.sqlite.pins.create({
      id: p.id, account_id: p.accountId, application_id: p.applicationId, message_id: p.messageId, channel: p.channel,
      destination: p.destination, pin_hash: p.pinHash, pin_ciphertext: p.pinCiphertext, attempts_left: p.attemptsLeft,
      allow_multiple_verifications: p.allowMultipleVerifications ? 1 : 0, created_at: p.createdAt, expires_at: p.expiresAt,
      verified_at: null, locked_at: null, delivery_status: p.deliveryStatus, delivery_error: null, sent_at: null, send_count: 1,
      delivery_transport: null, provider_message_id: null, delivered_at: null, country: p.country ?? null, test_number: p.testNumber ? 1 : 0,
      risk: p.risk ?? null, ...ownMessageColumns(input.outbox, now),
    }, this.externalLimiter ? [] : limits, now, audit, input.dialect, input.risk, budget);
    // With an external limiter the store counted no limit: the outcome (and its windows) is the limiter's.
    return this.externalLimiter && created.allowed ? { ...external, ...created } : created;
  }

  /** Runs `write`; a PostgreSQL statement refused by a budget cap (and so undone) becomes that cap's refusal. */
  private async budgetRefusable<T>(budget: readonly BudgetCharge[], now: number, write: () => Promise<T>): Promise<T | RateLimitOutcome> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof pgHot.BudgetRefusal) return this.budgets.refusal(budget, now);
      throw err;
    }
  }

  async queueResend(pinId: string, channel: Channel, outbox: { id: string; request: DeliveryRequest } | undefined, limits: RateLimitCheck[], now: number, workflowStep?: WorkflowStepClaim, budget: BudgetCharge[] = []): Promise<RateLimitOutcome | { allowed: true; ended: true }> {
    return this.budgetRefusable(budget, now, () => this.limits.refusable(limits, now, () => this.deferred((db) => db.transaction().execute(async (trx) => {
      const pin = await trx.selectFrom('pins').select(['account_id', 'pin_ciphertext', 'expires_at', 'locked_at', 'verified_at'])
        .where('id', '=', pinId).executeTakeFirst();
      if (!pin || !isDeliverable({ pinCiphertext: pin.pin_ciphertext, verifiedAt: pin.verified_at, lockedAt: pin.locked_at, expiresAt: Number(pin.expires_at) }, now)) {
        return { allowed: true as const, ended: true as const };
      }
      // SQLite: the caps are checked before the limits count (one connection: nothing comes between).
      const budgetChecked = this.dialect === 'sqlite' ? await this.budgets.consumeWithin(trx, budget, now) : { allowed: true as const };
      if (!budgetChecked.allowed) return budgetChecked;
      let outcome = await this.limits.consumeWithin(trx, limits, now);
      if (!outcome.allowed) {
        // The caps were counted in this transaction: undone with it.
        if (budget.length > 0 && this.dialect === 'sqlite') throw new LimitRefusedAfterBudget(outcome);
        return outcome;
      }
      // PostgreSQL: one statement adds the charges; a crossing throws BudgetRefusal and the transaction is undone.
      const budgetSpent = this.dialect === 'postgres' ? await pgHot.consumeBudgets(trx, budget) : budgetChecked.budgetSpent;
      if (budget.length > 0) outcome = { ...outcome, budgetSpent: budgetSpent ?? {} };
      // A workflow's step commits with its message or not at all (store/workflow-store.ts).
      if (workflowStep && !(await markWorkflowStepSent(trx, workflowStep, now))) throw new WorkflowClaimLost();
      if (outbox) {
        await this.insertOutbox(trx, outbox, pinId, pin.account_id, channel, now);
        await trx.updateTable('pins').set((eb) => ({ send_count: eb('send_count', '+', 1), delivery_status: 'queued' })).where('id', '=', pinId).execute();
      }
      return outcome;
    })))).catch((err: unknown) => {
      if (err instanceof WorkflowClaimLost) return { allowed: true as const, ended: true as const };
      if (err instanceof LimitRefusedAfterBudget) return err.outcome;
      throw err;
    });
  }

  private async insertOutbox(trx: Db, outbox: { id: string; request: DeliveryRequest }, pinId: string, accountId: string, channel: Channel, now: number, eventAt = now): Promise<void> {
    await this.hot.insertOutbox.execute(trx, {
      id: outbox.id, pin_id: pinId, account_id: accountId, channel, request: JSON.stringify(outbox.request), state: 'pending',
      attempts: 0, next_attempt_at: now, lease_until: 0, last_error: null, created_at: now, updated_at: now, transport: null, provider_message_id: null,
    });
    await this.addEvent(trx, { pinId, accountId, at: eventAt, event: 'queued', channel });
    // Delivered to every listening node when (and only if) this transaction commits; PostgreSQL folds
    // the notifications of one transaction on one channel into one.
    if (this.dialect === 'postgres') await sql`select pg_notify(${OUTBOX_CHANNEL}, '')`.execute(trx);
  }

  /** Appends to a PIN's delivery history; part of the transaction of the change it records. */
  private async addEvent(trx: Db, e: { pinId: string; accountId: string; at: number; event: DeliveryEventKind; channel?: string | null; transport?: string | null; providerMessageId?: string | null; error?: string | null }): Promise<void> {
    await this.hot.insertEvent.execute(trx, {
      id: nextEventId(), pin_id: e.pinId, account_id: e.accountId, at: e.at, event: e.event, channel: e.channel ?? null,
      transport: e.transport ?? null, provider_message_id: e.providerMessageId ?? null, error: e.error ?? null,
    });
  }

  /** Records an outcome of a message (`own`: the PIN's first, else an outbox row) in the history of its PIN. */
  private async addMessageEvent(trx: Db, id: string, pinId: string, own: boolean, at: number, event: DeliveryEventKind, details: { transport?: string | null; providerMessageId?: string | null; error?: string | null } = {}): Promise<void> {
    const values = { id: nextEventId(), at, event, transport: details.transport ?? null, providerMessageId: details.providerMessageId ?? null, error: details.error ?? null };
    if (own) await this.hot.insertOwnMessageEvent.execute(trx, { ...values, pinId });
    else await this.hot.insertOutboxEvent.execute(trx, { ...values, outboxId: id });
  }

  async getPin(accountId: string, pinId: string): Promise<PinRecord | undefined> {
    const row = this.dialect === 'sqlite' ? await this.sqlite.pins.get(accountId, pinId) : await this.hot.pin.first(this.db, { id: pinId, accountId });
    return row && toPin(row);
  }

  async getPinToVerify(accountId: string, pinId: string): Promise<{ pin: PinRecord; application: ApplicationRecord | undefined } | undefined> {
    // The application from the configuration cache (on PostgreSQL checked by the request's key read).
    const row = this.dialect === 'sqlite' ? await this.sqlite.pins.getToVerify(accountId, pinId) : await this.hot.pin.first(this.db, { id: pinId, accountId });
    const pin = row && toPin(row);
    return pin && { pin, application: await this.getApplication(accountId, pin.applicationId) };
  }

  durable(): Promise<void> {
    return this.options.durability?.durable() ?? this.flushes?.durable() ?? Promise.resolve();
  }

  /** PostgreSQL: runs a hot statement that commits without waiting for the flush (deferred-flushes.ts); durable() waits for it. */
  private deferFlush<T>(statement: (deferFlush: boolean) => Promise<T>): Promise<T> {
    return this.flushes ? this.flushes.deferred(() => statement(true)) : statement(false);
  }

  /**
   * Runs `work` on the connection without waiting for the disk when it is given back (SQLite group
   * commit): its commits are made but may not be durable yet, so the caller awaits durable() before
   * it acknowledges anything. Elsewhere (PostgreSQL, an in-memory database) a commit is durable when
   * it returns, and this is just `work(db)`.
   */
  private deferred<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    const durability = this.options.durability;
    if (!durability) return work(this.db);
    return this.db.connection().execute((connection) => {
      durability.deferNextRelease();
      return work(connection);
    });
  }

  /** When the next hit on a limit will be allowed, without counting one. */
  peekRateLimit(check: RateLimitCheck, now: number): Promise<number> {
    return this.limits.peek(check, now);
  }

  async consumeRateLimits(limits: RateLimitCheck[], now: number): Promise<RateLimitOutcome> {
    if (this.externalLimiter) return this.externalLimiter.consumeRateLimits(limits, now);
    if (this.dialect === 'postgres') {
      return this.limits.refusable(limits, now, async () => {
        return this.limits.allowedAfter(limits, await pgHot.consumeLimits(this.db, limits, now), now);
      });
    }
    return this.db.transaction().execute((trx) => this.limits.consumeWithin(trx, limits, now));
  }

  async verifyPinAttempt(pin: PinToVerify, now: number, limits: RateLimitCheck[], matches: (pinHash: string) => boolean, audit: (attempt: VerifyAttempt) => AuditAppend, dialect?: DialectVerification): Promise<AuditedVerifyAttempt> {
    if (this.dialect === 'postgres') return { ...await this.verifyPinAttemptPostgres(pin, now, limits, matches, dialect), audited: false };
    // One synchronous transaction, one commit: the limit, the attempt, the verified mark or the lock,
    // and the audit entry (sqlite/pin-statements.ts). With an external limiter (Redis), its verdict
    // comes first, and a refusal's entry is its own transaction.
    const external = await this.limits.consumeExternally(limits, now);
    if (!external.allowed) {
      const refused = { kind: 'refused' as const, outcome: external };
      const { entry, seal } = audit(refused);
      await this.audit.append(entry, seal);
      return { ...refused, audited: true };
    }
    return { ...attemptOf(await this.sqlite.pins.attempt(pin, now, this.externalLimiter ? [] : limits, matches, (rows) => audit(attemptOf(rows)), dialect)), audited: true };
  }

  /**
   * PostgreSQL: the limit and the attempt are one statement; a right PIN's verified mark (the second
   * race gate) or the last wrong attempt's lock follows in the same transaction, so that concurrent
   * right PINs wait on the row and find it verified without spending an attempt. A wrong PIN is
   * three round trips (BEGIN, the statement, COMMIT), whatever the limits.
   */
  private async verifyPinAttemptPostgres(pin: PinToVerify, now: number, limits: RateLimitCheck[], matches: (pinHash: string) => boolean, dialect: DialectVerification | undefined): Promise<VerifyAttempt> {
    const external = await this.limits.consumeExternally(limits, now);
    if (!external.allowed) return { kind: 'refused', outcome: external };
    const dbLimits = this.externalLimiter ? [] : limits;
    try {
      // A wrong candidate (told by the hash the caller read; it never changes) needs no verified mark:
      // its attempt is one statement, committed on its own. Only the last one takes a second, the lock.
      if (pin.pinHash !== undefined && !matches(pin.pinHash)) {
        const row = await pgHot.countAttempt(this.db, dbLimits, now, pin.id);
        if (!row) return { kind: 'ended', pin: await this.getPin(pin.accountId, pin.id) };
        const counted = toPin(row);
        if (counted.attemptsLeft === 0) await this.db.transaction().execute((trx) => this.lockIn(trx, pin.id, now));
        return { kind: 'counted', pin: counted, matched: false, verified: false };
      }
      return await this.db.transaction().execute(async (trx): Promise<VerifyAttempt> => {
        const row = await pgHot.countAttempt(trx, dbLimits, now, pin.id);
        if (!row) {
          const current = await this.hot.pin.first(trx, { id: pin.id, accountId: pin.accountId });
          return { kind: 'ended', pin: current && toPin(current) };
        }
        return this.settleAttempt(trx, toPin(row), now, matches, dialect);
      });
    } catch (err) {
      if (err instanceof RateLimitRefusal) return { kind: 'refused', outcome: await this.limits.refusalOutcome(limits, now) };
      throw err;
    }
  }

  /**
   * PostgreSQL, after a counted attempt: compares the candidate, then marks the PIN verified (ending
   * `dialect`'s verification with it) or, after its last wrong attempt, locks it.
   */
  private async settleAttempt(trx: Transaction<Database>, counted: PinRecord, now: number, matches: (pinHash: string) => boolean, dialect: DialectVerification | undefined): Promise<VerifyAttempt> {
    if (matches(counted.pinHash)) {
      const won = await this.markVerifiedIn(trx, counted.id, now, counted.allowMultipleVerifications);
      if (won && dialect) await this.twilio.endVerificationIn(trx, counted.accountId, counted.id, 'approved', now, dialect.approved);
      return { kind: 'counted', pin: counted, matched: true, verified: won };
    }
    if (counted.attemptsLeft === 0) await this.lockIn(trx, counted.id, now);
    return { kind: 'counted', pin: counted, matched: false, verified: false };
  }

  /** The second race gate: without multiple verifications only the request that flips verified_at wins. */
  private async markVerifiedIn(trx: Transaction<Database>, pinId: string, now: number, allowMultiple: boolean): Promise<boolean> {
    const won = (await (allowMultiple ? this.hot.markVerified : this.hot.markVerifiedOnce).affected(trx, { id: pinId, now })) > 0;
    if (won) await this.events.enqueuePinEvent(trx, 'pin.verified', pinId, now, { status: 'verified' });
    return won;
  }

  private async lockIn(trx: Transaction<Database>, pinId: string, now: number): Promise<void> {
    if ((await this.hot.lock.affected(trx, { id: pinId, now })) > 0) await this.events.enqueuePinEvent(trx, 'pin.locked', pinId, now, { status: 'locked' });
  }

  async listVerifications(accountId: string, applicationId: string, destination: string, filter: { verified?: boolean; sent?: boolean }, limit: number): Promise<VerificationRow[]> {
    let query = this.db.selectFrom('pins').select(['destination', 'verified_at', 'sent_at'])
      .where('application_id', '=', applicationId).where('destination', '=', destination).where('account_id', '=', accountId);
    if (filter.verified !== undefined) query = query.where('verified_at', filter.verified ? 'is not' : 'is', null);
    if (filter.sent !== undefined) query = query.where('sent_at', filter.sent ? 'is not' : 'is', null);
    const rows = await query.orderBy('created_at', 'desc').limit(limit).execute();
    return rows.map((r) => ({ destination: r.destination, verifiedAt: nullableNumber(r.verified_at), sentAt: nullableNumber(r.sent_at) }));
  }

  // --- outbox ---

  async claimOutbox(now: number, leaseUntil: number, max: number, holder: string | null = null): Promise<OutboxRecord[]> {
    if (this.dialect === 'sqlite') {
      // One transaction of prepared statements that leases only what it hands over (sqlite/outbox-statements.ts).
      // Not awaited to disk: a lease lost in a crash costs nothing (a node that starts gives back every
      // lease it held, and delivery is at least once), while an fsync here would sit between every
      // accepted message and its provider.
      const { own, later } = await this.sqlite.outbox.claim(now, leaseUntil, max, holder);
      return oldestFirst([...own.map(ownMessageOf), ...later.map((r) => laterMessageOf(r))]).map(outboxRecordOf);
    }
    // PostgreSQL: first messages (on their PINs) and later ones (outbox rows), both claims at once, on
    // two connections, each committed by itself: one may fail (the database went away) after the
    // other committed its leases, and those messages are this node's to deliver all the same.
    const [own, later] = await Promise.allSettled([this.claimOwnMessages(now, leaseUntil, max, holder), this.claimLaterMessages(now, leaseUntil, max, holder)]);
    const claimed = oldestFirst([...(own.status === 'fulfilled' ? own.value : []), ...(later.status === 'fulfilled' ? later.value : [])]);
    const failure = own.status === 'rejected' ? own.reason : later.status === 'rejected' ? later.reason : undefined;
    if (failure !== undefined && claimed.length === 0) throw failure;
    let givenBack = true;
    // Each claim leased up to `max`: what does not fit is given back at once, or it would wait out the lease.
    if (failure === undefined) givenBack = await this.giveBackClaims(claimed.slice(max), leaseUntil).then(() => true, () => false);
    const handedOver = (failure === undefined ? claimed.slice(0, max) : claimed).map(outboxRecordOf);
    // A failed statement may have committed its leases without this node reading them (and the extra
    // ones may not have been given back): the worker takes them back once the database answers again.
    if (failure !== undefined || !givenBack) throw new IncompleteClaimError(handedOver, failure);
    return handedOver;
  }

  /** Undoes a claim of these messages (its lease and its count of attempts), as long as no one has claimed them since. */
  private async giveBackClaims(messages: ClaimedMessage[], leaseUntil: number): Promise<void> {
    if (messages.length === 0) return;
    const own = messages.filter((m) => m.own).map((m) => m.pinId);
    const later = messages.filter((m) => !m.own).map((m) => m.id);
    if (own.length > 0) {
      await this.db.updateTable('pins').set({ message_lease_until: 0, message_lease_holder: null, message_attempts: sql<number>`message_attempts - 1` })
        .where('id', 'in', own).where('message_lease_until', '=', leaseUntil).execute();
    }
    if (later.length > 0) {
      await this.db.updateTable('outbox').set((eb) => ({ lease_until: 0, lease_holder: null, attempts: eb('attempts', '-', 1) }))
        .where('id', 'in', later).where('lease_until', '=', leaseUntil).execute();
    }
  }

  /**
   * PostgreSQL: leases PINs whose own message is due (the partial index pins_message_due is the
   * outbox of first messages), the due PINs locked once, in a CTE (as `id in (subquery)` the planner
   * may rescan the locking subquery per row), skipping those another node is claiming right now.
   */
  private async claimOwnMessages(now: number, leaseUntil: number, max: number, holder: string | null): Promise<ClaimedMessage[]> {
    const lease = { message_lease_until: leaseUntil, message_lease_holder: holder, message_attempts: sql<number>`message_attempts + 1` };
    const rows = await this.db.with('due', (db) => db.selectFrom('pins').select('id').where('message_state', '=', sql.lit('pending')).where('message_due_at', '<=', now)
      .where('message_lease_until', '<=', now).orderBy('message_due_at').limit(max).forUpdate().skipLocked())
      .updateTable('pins').from('due').set(lease)
      .whereRef('pins.id', '=', 'due.id').where('pins.message_state', '=', sql.lit('pending')).returningAll('pins').execute();
    return rows.map(ownMessageOf);
  }

  /** PostgreSQL: leases due `outbox` rows, the messages after a PIN's first (resends, failover). */
  private async claimLaterMessages(now: number, leaseUntil: number, max: number, holder: string | null): Promise<ClaimedMessage[]> {
    const rows = await this.db.updateTable('outbox')
      .set((eb) => ({ lease_until: leaseUntil, lease_holder: holder, attempts: eb('attempts', '+', 1), updated_at: now }))
      // Several nodes claim from one PostgreSQL: skip rows another node is claiming right now.
      .where('id', 'in', (eb) => eb.selectFrom('outbox').select('id').where('state', '=', 'pending').where('next_attempt_at', '<=', now)
        .where('lease_until', '<=', now).orderBy('next_attempt_at').limit(max).forUpdate().skipLocked())
      .where('state', '=', 'pending')
      // RETURNING gives no order (it follows the physical rows): claimOutbox sorts.
      .returningAll().execute();
    const pins = await this.pinsOfClaim(rows);
    return rows.map((r) => laterMessageOf(r, pins.get(r.pin_id)));
  }

  /** The claimed messages' PINs in one read (PostgreSQL: one round trip for the batch rather than one per message). */
  private async pinsOfClaim(rows: { pin_id: string; account_id: string }[]): Promise<Map<string, PinRecord>> {
    if (rows.length === 0) return new Map();
    const found = await this.db.selectFrom('pins').selectAll().where('id', 'in', [...new Set(rows.map((r) => r.pin_id))]).execute();
    const accountOf = new Map(rows.map((r) => [r.pin_id, r.account_id]));
    return new Map(found.filter((p) => accountOf.get(p.id) === p.account_id).map((p) => [p.id, toPin(p)]));
  }

  async completeOutbox(id: string, pinId: string, now: number, accepted?: AcceptedMessage, audit?: AuditAppend): Promise<{ audited: boolean }> {
    const transport = accepted?.transport ?? null;
    const providerMessageId = accepted?.providerMessageId ?? null;
    const price = accepted?.price;
    if (this.dialect === 'sqlite') return this.recordOutcome({ kind: 'sent', id, pinId, now, eventId: nextEventId(), transport, providerMessageId, price, audit });
    await this.completions.submit({ id, pinId, now, transport, providerMessageId, price });
    return { audited: false };
  }

  /** PostgreSQL: records sent messages; those completed while an earlier batch was being written share one transaction. */
  private readonly completions = new WriteBatcher<{ id: string; pinId: string; now: number; transport: string | null; providerMessageId: string | null; price: MessagePriceInput | undefined }>((sent) =>
    this.db.transaction().execute(async (trx) => {
      // One statement for the batch (messages done, PINs sent, history, prices), then the webhook
      // events only if some subscription could want them.
      await pgHot.completeMessages(trx, sent.map((s) => ({ ...s, eventId: nextEventId() })));
      if (!(await this.events.anySubscriptionEnabled(trx))) return;
      for (const { pinId, now, transport } of sent) await this.events.enqueuePinEvent(trx, 'pin.sent', pinId, now, { status: 'sent', transport });
    }));

  /**
   * SQLite: records an outcome with its audit entry; outcomes that arrive while an earlier batch waits
   * for the disk share the next transaction (one commit for the batch, sqlite/outbox-statements.ts).
   * Resolves once the outcome is durable, as every write outside the request paths does.
   */
  private async recordOutcome(outcome: OutboxOutcome): Promise<{ audited: boolean }> {
    const failure = await this.outcomes.submit(outcome);
    if (failure !== undefined) throw failure;
    return { audited: outcome.kind !== 'retried' && outcome.audit !== undefined };
  }

  /** Each outcome's failure (undefined: recorded), durable once the batch resolves. */
  private readonly outcomes = new WriteBatcher<OutboxOutcome, unknown>(async (outcomes) => {
    let failures: unknown[] = outcomes.map(() => undefined);
    try {
      await this.sqlite.outbox.record(outcomes);
    } catch (err) {
      if (outcomes.length === 1) throw err;
      // One outcome that cannot be written (an audit entry that cannot be sealed) must not undo the
      // others of its batch, whose messages would then go out again: each is written alone, and only
      // those that fail again fail their callers.
      failures = [];
      for (const outcome of outcomes) {
        failures.push(await Promise.resolve().then(() => this.sqlite.outbox.record([outcome])).then(() => undefined, (failure: unknown) => failure ?? new Error('outcome not recorded')));
      }
    }
    await this.durable();
    return failures;
  });

  async retryOutbox(id: string, pinId: string, nextAttemptAt: number, error: string, now: number): Promise<void> {
    if (this.dialect === 'sqlite') {
      await this.recordOutcome({ kind: 'retried', id, pinId, now, eventId: nextEventId(), nextAttemptAt, error });
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      const own = await trx.updateTable('pins').set({ message_due_at: nextAttemptAt, message_lease_until: 0, message_error: error })
        .where('id', '=', pinId).where('delivery_id', '=', id).executeTakeFirst();
      if (Number(own.numUpdatedRows) === 0) {
        await trx.updateTable('outbox').set({ next_attempt_at: nextAttemptAt, lease_until: 0, last_error: error, updated_at: now }).where('id', '=', id).execute();
      }
      await this.addMessageEvent(trx, id, pinId, Number(own.numUpdatedRows) > 0, now, 'retried', { error });
    });
  }

  async failOutbox(id: string, pinId: string, error: string, now: number, state: 'failed' | 'cancelled', audit?: AuditAppend): Promise<{ audited: boolean }> {
    if (this.dialect === 'sqlite') return this.recordOutcome({ kind: state, id, pinId, now, eventId: nextEventId(), error, audit });
    await this.db.transaction().execute(async (trx) => {
      const own = await trx.updateTable('pins').set({ message_state: state, message_error: error })
        .where('id', '=', pinId).where('delivery_id', '=', id).executeTakeFirst();
      if (Number(own.numUpdatedRows) === 0) await trx.updateTable('outbox').set({ state, last_error: error, updated_at: now }).where('id', '=', id).execute();
      await this.addMessageEvent(trx, id, pinId, Number(own.numUpdatedRows) > 0, now, state, { error });
      if (state === 'failed') {
        // A failed resend does not undo an earlier successful delivery of the same PIN.
        const failed = await trx.updateTable('pins').set({ delivery_status: 'failed', delivery_error: error })
          .where('id', '=', pinId).where('sent_at', 'is', null).executeTakeFirst();
        if (Number(failed.numUpdatedRows) > 0) await this.events.enqueuePinEvent(trx, 'pin.failed', pinId, now, { status: 'failed', error });
      }
    });
    return { audited: false };
  }

  async findReceiptMessage(receipt: Pick<ReceiptInput, 'transport' | 'providerMessageId'>): Promise<ReceiptMessage | undefined> {
    const row = await this.messageOfReceipt(this.db, receipt);
    return row && { pinId: row.pin_id, accountId: row.account_id, channel: row.channel, request: JSON.parse(row.request) as DeliveryRequest };
  }

  async recordReceipt(receipt: ReceiptInput, options: ReceiptOptions = {}): Promise<{ pinId: string; accountId: string; requeued: boolean } | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await this.messageOfReceipt(trx, receipt);
      if (!row) return undefined;
      // A provider may repeat a receipt: the repetition changes the history, never the events or the route.
      const before = await trx.selectFrom('pins').select(['delivery_status', 'provider_message_id']).where('id', '=', row.pin_id).executeTakeFirst();
      const repeated = before?.delivery_status === receipt.status && before.provider_message_id === receipt.providerMessageId;
      const applied = await trx.updateTable('pins').set({
        delivery_status: receipt.status,
        delivered_at: receipt.status === 'delivered' ? receipt.at : null,
        delivery_error: receipt.status === 'undelivered' ? (receipt.error ?? 'undelivered') : null,
      // Only the receipt for the latest message counts: a late receipt of an earlier send does not overwrite it.
      }).where('id', '=', row.pin_id).where('provider_message_id', '=', receipt.providerMessageId).executeTakeFirst();
      await this.addEvent(trx, {
        pinId: row.pin_id, accountId: row.account_id, at: receipt.at, event: receipt.status, channel: row.channel,
        transport: receipt.transport, providerMessageId: receipt.providerMessageId, error: receipt.error ?? null,
      });
      const current = Number(applied.numUpdatedRows) > 0 && !repeated;
      const now = options.now ?? receipt.at;
      const requeued = current && receipt.status === 'undelivered' && options.requeue !== undefined
        && await this.requeueMessage(trx, row, receipt, options.requeue, now);
      // Events follow the PIN's latest message only; an undelivered one that is sent again is not a failure yet.
      if (current && receipt.status === 'delivered') {
        await this.events.enqueuePinEvent(trx, 'pin.delivered', row.pin_id, now, { status: 'delivered', transport: receipt.transport });
      } else if (current && !requeued && !(await this.hasPendingMessage(trx, row.pin_id))) {
        await this.events.enqueuePinEvent(trx, 'pin.failed', row.pin_id, now, { status: 'undelivered', error: receipt.error ?? 'undelivered', transport: receipt.transport });
      }
      return { pinId: row.pin_id, accountId: row.account_id, requeued };
    });
  }

  /**
   * Queues the message of an undelivered receipt again with the request the caller chose, guarded
   * by one conditional UPDATE of the PIN: it still names the receipt's message (a resend or another
   * requeue since has moved it on), it is live at `now` (not expired, verified, locked or erased)
   * and nothing else of it is queued. The UPDATE holds the PIN's row (PostgreSQL) or the write lock
   * (SQLite) to the commit, so a verify or a resend racing with the receipt is either seen here or
   * sees the new message. The PIN then names no message, so a repeated or late receipt of the
   * undelivered one cannot overwrite the state of the message now on its way.
   */
  private async requeueMessage(trx: Transaction<Database>, message: { pin_id: string; account_id: string; channel: Channel }, receipt: ReceiptInput, request: DeliveryRequest, now: number): Promise<boolean> {
    const moved = await trx.updateTable('pins').set({ delivery_status: 'queued', delivery_transport: null, provider_message_id: null })
      .where('id', '=', message.pin_id).where('provider_message_id', '=', receipt.providerMessageId)
      .where('pin_ciphertext', 'is not', null).where('expires_at', '>', now).where('verified_at', 'is', null).where('locked_at', 'is', null)
      .where((eb) => eb.or([eb('message_state', 'is', null), eb('message_state', '!=', 'pending')]))
      .where((eb) => eb.not(eb.exists(eb.selectFrom('outbox').select('outbox.id').whereRef('outbox.pin_id', '=', 'pins.id').where('outbox.state', '=', 'pending'))))
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 0) return false;
    // The history sorts by time: the new message follows the receipt even when the provider's clock is ahead.
    await this.insertOutbox(trx, { id: randomUUID(), request }, message.pin_id, message.account_id, message.channel, now, Math.max(now, receipt.at));
    return true;
  }

  /** The message a receipt names: a PIN's own (first) message, or a later one's outbox row. */
  private async messageOfReceipt(trx: Db, receipt: Pick<ReceiptInput, 'transport' | 'providerMessageId'>): Promise<{ pin_id: string; account_id: string; channel: Channel; request: string } | undefined> {
    const own = await trx.selectFrom('pins').select(['id as pin_id', 'account_id', 'channel', 'message_request'])
      .where('message_provider_id', '=', receipt.providerMessageId).where('message_transport', '=', receipt.transport).executeTakeFirst();
    if (own) return { pin_id: own.pin_id, account_id: own.account_id, channel: own.channel, request: own.message_request ?? '{}' };
    return trx.selectFrom('outbox').select(['pin_id', 'account_id', 'channel', 'request'])
      .where('provider_message_id', '=', receipt.providerMessageId).where('transport', '=', receipt.transport).executeTakeFirst();
  }

  /** Whether a message of the PIN is queued or awaiting a retry (its first, a resend, or a failover already under way). */
  private async hasPendingMessage(trx: Db, pinId: string): Promise<boolean> {
    const own = await trx.selectFrom('pins').select('id').where('id', '=', pinId).where('message_state', '=', 'pending').executeTakeFirst();
    if (own) return true;
    const pending = await trx.selectFrom('outbox').select('id').where('pin_id', '=', pinId).where('state', '=', 'pending').executeTakeFirst();
    return pending !== undefined;
  }

  async listDeliveryEvents(accountId: string, pinId: string): Promise<DeliveryEvent[]> {
    const [rows, pin] = await Promise.all([
      this.db.selectFrom('delivery_events').selectAll().where('pin_id', '=', pinId).where('account_id', '=', accountId).execute(),
      this.db.selectFrom('pins').select(['channel', 'message_state', 'message_queued_at', 'message_sent_at', 'message_transport', 'message_provider_id', 'message_sent_event'])
        .where('id', '=', pinId).where('account_id', '=', accountId).executeTakeFirst(),
    ]);
    const entries: { key: string; event: DeliveryEvent }[] = rows.map((r) => ({
      key: r.id,
      event: {
        at: Number(r.at), event: r.event as DeliveryEventKind, channel: r.channel as Channel | null, transport: r.transport,
        providerMessageId: r.provider_message_id, error: r.error,
      },
    }));
    entries.push(...ownMessageHistory(pin));
    // By time, then in the order written (event ids sort so; the derived `queued`, the PIN's first entry, sorts before any).
    entries.sort((x, y) => x.event.at - y.event.at || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    return entries.map((e) => e.event);
  }

  async releaseOutbox(messages: { id: string; pinId: string }[], now: number): Promise<void> {
    if (messages.length === 0) return;
    await this.db.updateTable('pins').set({ message_lease_until: 0 })
      .where('id', 'in', messages.map((m) => m.pinId)).where('delivery_id', 'in', messages.map((m) => m.id)).where('message_state', '=', 'pending').execute();
    await this.db.updateTable('outbox').set({ lease_until: 0, updated_at: now }).where('id', 'in', messages.map((m) => m.id)).where('state', '=', 'pending').execute();
  }

  async renewOutbox(messages: { id: string; pinId: string; attempts: number }[], holder: string, leaseUntil: number): Promise<number> {
    if (messages.length === 0) return 0;
    // The holder and the attempt count together name the claim: a message claimed since (by another
    // node, or again by a node of the same name) counted one attempt more, so its new lease is not
    // touched. A lease of 0 was given back (a retry scheduled, a release): it stays given back.
    const own = await this.db.updateTable('pins').set({ message_lease_until: leaseUntil })
      .where((eb) => eb.or(messages.map((m) => eb.and([eb('id', '=', m.pinId), eb('delivery_id', '=', m.id), eb('message_attempts', '=', m.attempts)]))))
      .where('message_lease_holder', '=', holder).where('message_state', '=', sql.lit('pending')).where('message_lease_until', '>', 0).executeTakeFirst();
    const later = await this.db.updateTable('outbox').set({ lease_until: leaseUntil })
      .where((eb) => eb.or(messages.map((m) => eb.and([eb('id', '=', m.id), eb('attempts', '=', m.attempts)]))))
      .where('lease_holder', '=', holder).where('state', '=', 'pending').where('lease_until', '>', 0).executeTakeFirst();
    return Number(own.numUpdatedRows) + Number(later.numUpdatedRows);
  }

  async releaseHeldOutbox(holder: string, now: number, keep: { id: string; pinId: string }[] = []): Promise<number> {
    // Through pins_message_due (only pending PINs are in it); run when a node starts, and after a claim
    // whose answer may have been lost. A PIN's own message is named by its delivery_id.
    const kept = keep.map((m) => m.id);
    let own = this.db.updateTable('pins').set({ message_lease_until: 0 })
      .where('message_state', '=', sql.lit('pending')).where('message_lease_holder', '=', holder).where('message_lease_until', '>', now);
    let later = this.db.updateTable('outbox').set({ lease_until: 0, updated_at: now })
      .where('state', '=', 'pending').where('lease_holder', '=', holder).where('lease_until', '>', now);
    if (kept.length > 0) {
      own = own.where('delivery_id', 'not in', kept);
      later = later.where('id', 'not in', kept);
    }
    const [ownReleased, laterReleased] = [await own.executeTakeFirst(), await later.executeTakeFirst()];
    return Number(ownReleased.numUpdatedRows) + Number(laterReleased.numUpdatedRows);
  }

  async countPendingOutbox(): Promise<number> {
    const own = await this.db.selectFrom('pins').select((eb) => eb.fn.countAll<number>().as('n')).where('message_state', '=', sql.lit('pending')).executeTakeFirstOrThrow();
    const later = await this.db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).where('state', '=', 'pending').executeTakeFirstOrThrow();
    return Number(own.n) + Number(later.n);
  }

  async oldestPendingOutboxAt(): Promise<number | undefined> {
    // Both through their partial indexes of pending messages, which hold only what waits.
    const own = await this.db.selectFrom('pins').select((eb) => eb.fn.min('message_queued_at').as('at')).where('message_state', '=', sql.lit('pending')).executeTakeFirst();
    const later = await this.db.selectFrom('outbox').select((eb) => eb.fn.min('created_at').as('at')).where('state', '=', 'pending').executeTakeFirst();
    const times = [own?.at, later?.at].filter((at) => at !== null && at !== undefined).map(Number);
    return times.length === 0 ? undefined : Math.min(...times);
  }

  async countLiveNodes(): Promise<number> {
    if (this.dialect === 'sqlite') return 1;
    // Every node's connections carry its id in application_name (open-store.ts): the distinct names
    // connected to this database now are the live nodes. A command of the CLI counts while it runs,
    // which only lowers each node's share for that time.
    const { rows } = await sql<{ n: number }>`select count(distinct application_name)::int as n from pg_stat_activity
      where datname = current_database() and application_name like 'twofa %'`.execute(this.db);
    return Math.max(1, Number(rows[0]?.n ?? 1));
  }

  // --- housekeeping ---

  /** See purge.ts. */
  purge(now: number, retentionMs: number, limits: PurgeLimits = PURGE_LIMITS): Promise<{ erased: number; deleted: number }> {
    return purgeEnded(this.db, this.dialect, { events: this.events, twilio: this.twilio, idempotency: this.idempotency, factors: this.factors }, now, retentionMs, limits);
  }
}

/**
 * Event ids sort in the order the events were written (wall-clock time, then a per-process counter),
 * so a history whose events share a timestamp still reads in order.
 */
let eventCounter = 0;
function nextEventId(): string {
  eventCounter = (eventCounter + 1) % 1_000_000;
  return `${Date.now().toString(36).padStart(9, '0')}-${eventCounter.toString(36).padStart(4, '0')}-${randomUUID().slice(0, 8)}`;
}

// --- row mapping ---

function nullableNumber(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

function apiKeySelect(db: Kysely<Database>) {
  return db.selectFrom('api_keys').innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select(['api_keys.id', 'api_keys.account_id', 'accounts.name as account_name', 'api_keys.key_prefix', 'api_keys.scopes',
      'api_keys.label', 'api_keys.created_at', 'api_keys.revoked_at']);
}

type ApiKeyRow = InferResult<ReturnType<typeof apiKeySelect>>[number];

function toApiKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id, accountId: row.account_id, accountName: row.account_name, keyPrefix: row.key_prefix,
    scopes: row.scopes.split(' ').filter((s) => s.length > 0), label: row.label, createdAt: Number(row.created_at), revokedAt: nullableNumber(row.revoked_at),
  };
}

function toApplication(row: Selectable<ApplicationsTable>): ApplicationRecord {
  return {
    id: row.id, accountId: row.account_id, name: row.name, enabled: row.enabled === 1,
    configuration: {
      pinAttempts: row.pin_attempts,
      allowMultiplePinVerifications: row.allow_multiple_pin_verifications === 1,
      pinTimeToLive: row.pin_time_to_live,
      verifyPinLimit: row.verify_pin_limit,
      sendPinPerApplicationLimit: row.send_pin_per_application_limit,
      sendPinPerPhoneNumberLimit: row.send_pin_per_phone_number_limit,
    },
    createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
    ...(row.workflow ? { workflow: JSON.parse(row.workflow) as WorkflowStep[] } : {}),
  };
}

/** The application's columns but its workflow, which only setWorkflow writes (an update of the rest never drops it). */
function fromApplication(app: ApplicationRecord): Omit<Selectable<ApplicationsTable>, 'workflow'> {
  const c = app.configuration;
  return {
    id: app.id, account_id: app.accountId, name: app.name, enabled: app.enabled ? 1 : 0,
    pin_attempts: c.pinAttempts, allow_multiple_pin_verifications: c.allowMultiplePinVerifications ? 1 : 0,
    pin_time_to_live: c.pinTimeToLive, verify_pin_limit: c.verifyPinLimit,
    send_pin_per_application_limit: c.sendPinPerApplicationLimit, send_pin_per_phone_number_limit: c.sendPinPerPhoneNumberLimit,
    created_at: app.createdAt, updated_at: app.updatedAt,
  };
}

function toTemplate(row: Selectable<MessageTemplatesTable>): MessageTemplateRecord {
  const base = {
    id: row.id, accountId: row.account_id, applicationId: row.application_id, pinType: row.pin_type as PinType,
    pinLength: row.pin_length, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
  if (row.kind === 'email') {
    return { ...base, kind: 'email', emailTemplateId: Number(row.email_template_id), from: row.email_from, landingPageId: row.landing_page_id };
  }
  return {
    ...base, kind: 'sms_voice', messageText: row.message_text ?? '', senderId: row.sender_id, language: row.language ?? 'en',
    voiceName: row.voice_name, repeatDtmf: row.repeat_dtmf, speechRate: row.speech_rate === null ? null : Number(row.speech_rate),
    regional: row.regional === null ? null : JSON.parse(row.regional),
    ...(row.autofill !== null ? { autofill: JSON.parse(row.autofill) as Autofill } : {}),
    ...(row.locale_texts !== null ? { texts: JSON.parse(row.locale_texts) as LocaleText[] } : {}),
    ...(row.name !== null ? { name: row.name } : {}),
    ...(Number(row.is_default) === 1 ? { isDefault: true } : {}),
  };
}

function fromTemplate(t: MessageTemplateRecord): Selectable<MessageTemplatesTable> {
  const common = {
    id: t.id, account_id: t.accountId, application_id: t.applicationId, kind: t.kind, pin_type: t.pinType, pin_length: t.pinLength,
    created_at: t.createdAt, updated_at: t.updatedAt,
  };
  if (t.kind === 'email') {
    return {
      ...common, message_text: null, sender_id: null, language: null, voice_name: null, repeat_dtmf: null, speech_rate: null, regional: null, autofill: null,
      email_template_id: t.emailTemplateId, email_from: t.from, landing_page_id: t.landingPageId, locale_texts: null, name: null, is_default: 0,
    };
  }
  return {
    ...common, message_text: t.messageText, sender_id: t.senderId, language: t.language, voice_name: t.voiceName, repeat_dtmf: t.repeatDtmf,
    speech_rate: t.speechRate, regional: t.regional === null ? null : JSON.stringify(t.regional),
    autofill: t.autofill ? JSON.stringify(t.autofill) : null,
    locale_texts: t.texts && t.texts.length > 0 ? JSON.stringify(t.texts) : null, name: t.name ?? null, is_default: t.isDefault === true ? 1 : 0,
    email_template_id: null, email_from: null, landing_page_id: null,
  };
}

function toEmailTemplate(row: Selectable<EmailTemplatesTable>): EmailTemplateRecord {
  return {
    id: Number(row.id), accountId: row.account_id, name: row.name, from: row.from_address, subject: row.subject, html: row.html,
    text: row.text, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
}

function attemptOf(rows: AttemptRows): VerifyAttempt {
  switch (rows.kind) {
    case 'refused': return rows;
    case 'ended': return { kind: 'ended', pin: rows.row && toPin(rows.row) };
    case 'counted': return { kind: 'counted', pin: toPin(rows.row), matched: rows.matched, verified: rows.verified };
  }
}

/** A PIN's own (first) message as a claim leased it, from the PIN's row. */
function ownMessageOf(r: Selectable<PinsTable>): ClaimedMessage {
  return {
    id: r.delivery_id!, pinId: r.id, accountId: r.account_id, channel: r.channel, request: JSON.parse(r.message_request!) as DeliveryRequest,
    attempts: r.message_attempts, createdAt: Number(r.message_queued_at), dueAt: Number(r.message_due_at), own: true, pin: toPin(r),
  };
}

/** A later message (an outbox row) as a claim leased it, with its PIN when the claim read it. */
function laterMessageOf(r: Selectable<Database['outbox']>, pin?: PinRecord): ClaimedMessage {
  return {
    id: r.id, pinId: r.pin_id, accountId: r.account_id, channel: r.channel, request: JSON.parse(r.request) as DeliveryRequest,
    attempts: r.attempts, createdAt: Number(r.created_at), dueAt: Number(r.next_attempt_at), own: false, ...(pin && { pin }),
  };
}

/** Oldest first, so that messages queued one after the other are handed over in that order. */
function oldestFirst(claimed: ClaimedMessage[]): ClaimedMessage[] {
  return claimed.sort((x, y) => x.dueAt - y.dueAt || x.createdAt - y.createdAt);
}

function outboxRecordOf({ dueAt, own, ...item }: ClaimedMessage): OutboxRecord {
  void dueAt;
  void own;
  return item;
}

function toPin(row: PinRecordRow): PinRecord {
  return {
    id: row.id, accountId: row.account_id, applicationId: row.application_id, messageId: row.message_id, channel: row.channel,
    destination: row.destination, pinHash: row.pin_hash, pinCiphertext: row.pin_ciphertext, attemptsLeft: row.attempts_left,
    allowMultipleVerifications: row.allow_multiple_verifications === 1, createdAt: Number(row.created_at), expiresAt: Number(row.expires_at),
    verifiedAt: nullableNumber(row.verified_at), lockedAt: nullableNumber(row.locked_at), deliveryStatus: row.delivery_status as DeliveryStatus,
    deliveryError: row.delivery_error, sentAt: nullableNumber(row.sent_at), sendCount: row.send_count,
    deliveryTransport: row.delivery_transport, providerMessageId: row.provider_message_id, deliveredAt: nullableNumber(row.delivered_at),
    testNumber: Number(row.test_number) === 1,
  };
}

/** The columns of a new PIN's own message (`message` absent: the channel has no transport, nothing is queued). */
function ownMessageColumns(message: { id: string; request: DeliveryRequest } | undefined, now: number) {
  return {
    delivery_id: message?.id ?? null, message_state: message ? 'pending' : null, message_request: message ? JSON.stringify(message.request) : null,
    message_attempts: 0, message_due_at: message ? now : null, message_lease_until: 0, message_error: null, message_queued_at: message ? now : null,
    message_sent_at: null, message_transport: null, message_provider_id: null, message_sent_event: null,
  };
}

/**
 * The `queued` and `sent` entries of a PIN's own message, read from its columns rather than stored
 * as rows. `queued` is the first thing that happens to a PIN (key ''), `sent` sorts among the rows by
 * the event id it was given when it was recorded.
 */
function ownMessageHistory(pin: { channel: Channel; message_state: string | null; message_queued_at: number | string | null; message_sent_at: number | string | null;
  message_transport: string | null; message_provider_id: string | null; message_sent_event: string | null } | undefined): { key: string; event: DeliveryEvent }[] {
  if (!pin || pin.message_state === null || pin.message_queued_at === null) return [];
  const entries: { key: string; event: DeliveryEvent }[] = [
    { key: '', event: { at: Number(pin.message_queued_at), event: 'queued', channel: pin.channel, transport: null, providerMessageId: null, error: null } },
  ];
  if (pin.message_sent_at !== null) {
    entries.push({
      key: pin.message_sent_event ?? '',
      event: { at: Number(pin.message_sent_at), event: 'sent', channel: pin.channel, transport: pin.message_transport, providerMessageId: pin.message_provider_id, error: null },
    });
  }
  return entries;
}

/** A limit refused a SQLite resend after its budget charges were counted: thrown so the transaction undoes them, answered as the limit's refusal. */
class LimitRefusedAfterBudget extends Error {
  constructor(readonly outcome: RateLimitOutcome & { allowed: false }) {
    super('rate limit reached');
  }
}
