// The Store kept in memory, for the services' unit tests (test/service/): the same rules as the
// database stores, without SQL, files or a server. It is not a production store: nothing survives
// the process, and two of the sub-stores are not kept at all (below).
//
// Faithful where it is kept: test/store/store-memory.test.ts runs the Store conformance suite on it,
// as on SQLite and PostgreSQL. Race gates hold because every change is made synchronously, between
// two awaits: JavaScript runs one such section at a time, as SQLite's one connection runs one
// transaction at a time, so a verification's counted attempt, a resend's checks and its write, or a
// limit's check and its hit cannot interleave with another request's.
//
// Not kept in memory: `twilio`, `prelude`, `vonage` (those dialects' rows) and `console` (the console's
// paged search and statistics, aggregated in SQL). Every method of those throws NotKeptInMemory;
// their use cases are tested over HTTP on the real stores.
import { randomUUID } from 'node:crypto';
import type { LocaleText } from '../../domain/template-locales.js';
import type { ApplicationRecord } from '../../domain/application-rules.js';
import { acceptsAttempt, isDeliverable } from '../../domain/pin-lifecycle.js';
import type { WorkflowStep } from '../../domain/workflows.js';
import type { AuditAppend } from '../audit-store.js';
import type { ConsoleStore } from '../console-store.js';
import { PURGE_LIMITS, type PurgeLimits } from '../purge-batches.js';
import type {
  AcceptedMessage, AccountRecord, ApiKeyRecord, AuditedVerifyAttempt, Channel, DeliveryEvent, DeliveryRequest, EmailTemplateFields,
  EmailTemplateRecord, MessageTemplateRecord, NewPin, OutboxRecord, PinRecord, PinToVerify, RateLimitCheck, RateLimitOutcome, ReceiptMessage,
  ReceiptInput, ReceiptOptions, Store, VerificationRow, VerifyAttempt,
} from '../store.js';
import { MemoryRouteStore } from '../route-store.js';
import type { TwilioStore } from '../twilio-store.js';
import type { PreludeStore } from '../prelude-store.js';
import type { VonageStore } from '../vonage-store.js';
import type { BudgetStore } from '../budget-store.js';
import type { PriceStore } from '../price-store.js';
import type { BudgetCharge } from '../../domain/budgets.js';
import type { WorkflowStepClaim } from '../workflow-store.js';
import { firstBatches, MemoryRateLimits } from './memory-limits.js';
import { MemoryFactorStore } from './memory-factor-store.js';
import { UNVERIFIED_FACTOR_TTL_MS } from '../../domain/factors.js';
import {
  compare, key, MemoryAuditStore, MemoryEventStore, MemoryIdempotencyStore, MemoryRiskStore, MemorySecurityStore, MemoryTestNumberStore, MemoryWorkflowStore,
  NotKeptInMemory,
} from './memory-sub-stores.js';

const copy = <T>(value: T): T => structuredClone(value);

/** A message of a PIN: its first (`own`, on the PIN's row in the database stores) or a later one (resend, failover). */
interface MessageRow {
  id: string;
  pinId: string;
  accountId: string;
  channel: Channel;
  request: DeliveryRequest;
  own: boolean;
  state: 'pending' | 'done' | 'failed' | 'cancelled';
  attempts: number;
  dueAt: number;
  leaseUntil: number;
  /** The node that claimed it last. */
  leaseHolder: string | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
  transport: string | null;
  providerMessageId: string | null;
}

/** An entry of a PIN's delivery history. `withPin`: the first message's `queued` and `sent`, which the database stores keep on the PIN's row and delete with it. */
interface HistoryRow {
  seq: number;
  pinId: string;
  accountId: string;
  withPin: boolean;
  event: DeliveryEvent;
}

/** Every method of a sub-store the in-memory store does not keep rejects with NotKeptInMemory. */
/** A part of the Store not kept in memory: every method throws NotKeptInMemory, but those `answered`. */
function notKeptInMemory<T extends object>(name: string, answered: Partial<T> = {}): T {
  return new Proxy({} as T, {
    get: (_target, method) => (typeof method === 'symbol' || method === 'then'
      ? undefined
      : (answered as Record<string, unknown>)[method] ?? (() => Promise.reject(new NotKeptInMemory(`store.${name}.${method}`)))),
  });
}

export class MemoryStore implements Store {
  readonly dialect = 'memory' as const;

  private readonly accounts = new Map<string, AccountRecord>();
  private readonly apiKeys = new Map<string, ApiKeyRecord & { keyHash: string }>();
  private readonly applications = new Map<string, ApplicationRecord>();
  private readonly messageTemplates = new Map<string, MessageTemplateRecord>();
  private readonly emailTemplates = new Map<number, EmailTemplateRecord>();
  private lastEmailTemplateId = 0;
  private readonly pins = new Map<string, PinRecord>();
  /** What a PIN keeps beside its record: the country for the console's statistics. */
  private readonly pinCountries = new Map<string, string | null>();
  private readonly messages = new Map<string, MessageRow>();
  private readonly history: HistoryRow[] = [];
  private historySeq = 0;
  private readonly limits = new MemoryRateLimits();

  readonly events = new MemoryEventStore(this.pins);
  readonly security = new MemorySecurityStore();
  readonly risk = new MemoryRiskStore();
  readonly routes = new MemoryRouteStore();
  readonly audit = new MemoryAuditStore();
  readonly idempotency = new MemoryIdempotencyStore();
  readonly testNumbers = new MemoryTestNumberStore();
  readonly factors = new MemoryFactorStore();
  readonly workflows = new MemoryWorkflowStore(
    (accountId, applicationId, steps, now) => this.setApplicationWorkflow(accountId, applicationId, steps, now),
    (pinId) => this.pins.has(pinId),
    (pinId) => {
      const first = [...this.messages.values()].find((m) => m.own && m.pinId === pinId);
      return first && copy(first.request);
    },
  );
  /** Not kept in memory: every method throws NotKeptInMemory. */
  // The Safe List, which every scored send asks about, is empty here: nothing can be put on it without
  // the Twilio rows this store does not keep.
  readonly twilio = notKeptInMemory<TwilioStore>('twilio', { isSafeListed: () => Promise.resolve(false) });
  readonly prelude = notKeptInMemory<PreludeStore>('prelude');
  readonly vonage = notKeptInMemory<VonageStore>('vonage');
  readonly budgets = notKeptInMemory<BudgetStore>('budgets');
  /** Records no prices (the services' unit tests run without a price list): every PIN's list is empty. */
  readonly prices: PriceStore = { listForPin: async () => [], spend: async () => [], reportProviderPrice: async () => false, purge: async () => 0 };
  /** Not kept in memory: every method throws NotKeptInMemory. */
  readonly console = notKeptInMemory<ConsoleStore>('console');

  async close(): Promise<void> {}
  async ping(): Promise<void> {}
  /** Nothing here is ever on a disk: every change is as durable as it will be when it is made. */
  async durable(): Promise<void> {}

  // --- accounts and API keys ---

  async findOrCreateAccount(name: string, id: string, now: number): Promise<AccountRecord> {
    let account = [...this.accounts.values()].find((a) => a.name === name);
    if (!account) {
      if (this.accounts.has(id)) throw new Error(`duplicate account id ${id}`);
      this.accounts.set(id, (account = { id, name, createdAt: now }));
    }
    return copy(account);
  }

  async insertApiKey(key: { id: string; accountId: string; keyHash: string; keyPrefix: string; scopes: string[]; label: string | null; createdAt: number }): Promise<void> {
    // The same key inserted twice is one key (nodes starting together with one bootstrap key).
    if (this.apiKeys.has(key.keyHash)) return;
    this.apiKeys.set(key.keyHash, { ...copy(key), accountName: '', revokedAt: null });
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const found = this.apiKeys.get(keyHash);
    return found && this.toApiKey(found);
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    return [...this.apiKeys.values()].sort((x, y) => x.createdAt - y.createdAt).map((k) => this.toApiKey(k));
  }

  async revokeApiKey(id: string, now: number): Promise<boolean> {
    const found = [...this.apiKeys.values()].find((k) => k.id === id && k.revokedAt === null);
    if (!found) return false;
    found.revokedAt = now;
    return true;
  }

  async countActiveApiKeys(): Promise<number> {
    return [...this.apiKeys.values()].filter((k) => k.revokedAt === null).length;
  }

  private toApiKey(k: ApiKeyRecord & { keyHash: string }): ApiKeyRecord {
    const { keyHash, ...record } = k;
    void keyHash;
    return { ...copy(record), accountName: this.accounts.get(k.accountId)?.name ?? '' };
  }

  // --- applications ---

  async insertApplication(app: ApplicationRecord): Promise<void> {
    if (this.applications.has(app.id)) throw new Error(`duplicate application ${app.id}`);
    // A workflow is set by workflows.setWorkflow only, as in the database stores.
    const { workflow, ...rest } = copy(app);
    void workflow;
    this.applications.set(app.id, rest);
  }

  async getApplication(accountId: string, id: string): Promise<ApplicationRecord | undefined> {
    const app = this.applications.get(id);
    return app?.accountId === accountId ? copy(app) : undefined;
  }

  async listApplications(accountId: string): Promise<ApplicationRecord[]> {
    return [...this.applications.values()].filter((a) => a.accountId === accountId).sort((x, y) => x.createdAt - y.createdAt || compare(x.id, y.id)).map(copy);
  }

  async updateApplication(app: ApplicationRecord): Promise<void> {
    const current = this.applications.get(app.id);
    if (current?.accountId !== app.accountId) return;
    // Everything but its creation time and its workflow, which an update never drops.
    const { workflow, createdAt, ...changes } = copy(app);
    void workflow; void createdAt;
    Object.assign(current, changes);
  }

  private setApplicationWorkflow(accountId: string, applicationId: string, steps: readonly WorkflowStep[] | null, now: number): boolean {
    const app = this.applications.get(applicationId);
    if (app?.accountId !== accountId) return false;
    if (steps === null) delete app.workflow;
    else app.workflow = copy(steps);
    app.updatedAt = now;
    return true;
  }

  // --- 2FA message templates ---

  async insertMessageTemplate(template: MessageTemplateRecord): Promise<void> {
    const k = key(template.applicationId, template.id);
    if (this.messageTemplates.has(k)) throw new Error(`duplicate message template ${template.id}`);
    this.messageTemplates.set(k, withoutEmptyAutofill(copy(template)));
  }

  async getMessageTemplate(accountId: string, applicationId: string, id: string): Promise<MessageTemplateRecord | undefined> {
    const template = this.messageTemplates.get(key(applicationId, id));
    return template?.accountId === accountId ? copy(template) : undefined;
  }

  async listMessageTemplates(accountId: string, applicationId: string): Promise<MessageTemplateRecord[]> {
    return [...this.messageTemplates.values()].filter((t) => t.accountId === accountId && t.applicationId === applicationId)
      .sort((x, y) => x.createdAt - y.createdAt || compare(x.id, y.id)).map(copy);
  }

  async updateMessageTemplate(template: MessageTemplateRecord): Promise<void> {
    const k = key(template.applicationId, template.id);
    const current = this.messageTemplates.get(k);
    if (current?.accountId !== template.accountId) return;
    // Its kind, creation time and locale texts stay (texts change through replaceTemplateTexts only).
    const texts = current.kind === 'sms_voice' ? current.texts : undefined;
    this.messageTemplates.set(k, withoutEmptyAutofill({ ...copy(template), kind: current.kind, createdAt: current.createdAt, texts } as MessageTemplateRecord));
  }

  async replaceTemplateTexts(accountId: string, applicationId: string, id: string, expected: readonly LocaleText[], next: readonly LocaleText[], now: number): Promise<boolean> {
    const current = this.messageTemplates.get(key(applicationId, id));
    if (current?.accountId !== accountId || current.kind !== 'sms_voice') return false;
    if (JSON.stringify(current.texts ?? []) !== JSON.stringify(expected)) return false;
    this.messageTemplates.set(key(applicationId, id), withoutEmptyAutofill({ ...current, texts: copy([...next]), updatedAt: now }));
    return true;
  }

  async deleteMessageTemplate(accountId: string, applicationId: string, id: string): Promise<boolean> {
    const current = this.messageTemplates.get(key(applicationId, id));
    if (current?.accountId !== accountId) return false;
    return this.messageTemplates.delete(key(applicationId, id));
  }

  // --- email templates ---

  async insertEmailTemplate(accountId: string, fields: EmailTemplateFields, now: number): Promise<EmailTemplateRecord> {
    const template: EmailTemplateRecord = { id: ++this.lastEmailTemplateId, accountId, ...copy(fields), createdAt: now, updatedAt: now };
    this.emailTemplates.set(template.id, template);
    return copy(template);
  }

  async getEmailTemplate(accountId: string, id: number): Promise<EmailTemplateRecord | undefined> {
    const template = this.emailTemplates.get(id);
    return template?.accountId === accountId ? copy(template) : undefined;
  }

  async listEmailTemplates(accountId: string): Promise<EmailTemplateRecord[]> {
    return [...this.emailTemplates.values()].filter((t) => t.accountId === accountId).sort((x, y) => x.id - y.id).map(copy);
  }

  async updateEmailTemplate(accountId: string, id: number, fields: EmailTemplateFields, now: number): Promise<EmailTemplateRecord | undefined> {
    const template = this.emailTemplates.get(id);
    if (template?.accountId !== accountId) return undefined;
    Object.assign(template, copy(fields), { updatedAt: now });
    return copy(template);
  }

  async deleteEmailTemplate(accountId: string, id: number): Promise<boolean> {
    if (this.emailTemplates.get(id)?.accountId !== accountId) return false;
    return this.emailTemplates.delete(id);
  }

  async messagesUsingEmailTemplate(accountId: string, id: number): Promise<string[]> {
    return [...this.messageTemplates.values()].filter((t) => t.accountId === accountId && t.kind === 'email' && t.emailTemplateId === id).map((t) => t.id);
  }

  // --- PINs ---

  async createPin(input: NewPin, limits: RateLimitCheck[], now: number): Promise<RateLimitOutcome> {
    const p = input.pin;
    if (this.pins.has(p.id)) throw new Error(`duplicate PIN ${p.id}`);
    if ((input.budget ?? []).length > 0) throw new NotKeptInMemory('budget charges of store.createPin');
    const outcome = this.limits.consume(limits, now);
    if (!outcome.allowed) return outcome;
    const { country, testNumber, ...fields } = copy(p);
    this.pins.set(p.id, {
      ...fields, verifiedAt: null, lockedAt: null, deliveryError: null, sentAt: null, sendCount: 1, deliveryTransport: null,
      providerMessageId: null, deliveredAt: null, testNumber: testNumber === true,
    });
    this.pinCountries.set(p.id, country ?? null);
    if (input.outbox) this.queueMessage(input.outbox, p.id, p.accountId, p.channel, now, now, true);
    if (input.risk) this.risk.apply(input.risk);
    return outcome;
  }

  async queueResend(pinId: string, channel: Channel, outbox: { id: string; request: DeliveryRequest } | undefined, limits: RateLimitCheck[], now: number, workflowStep?: WorkflowStepClaim, budget: BudgetCharge[] = []): Promise<RateLimitOutcome | { allowed: true; ended: true }> {
    if (budget.length > 0) throw new NotKeptInMemory('budget charges of store.queueResend');
    const ended = { allowed: true as const, ended: true as const };
    const pin = this.pins.get(pinId);
    // The race gate: the PIN is checked live, and the resend written, with nothing in between.
    if (!pin || !isDeliverable(pin, now)) return ended;
    const checked = this.limits.check(limits, now);
    if (typeof checked !== 'function') return checked;
    // A workflow's step is queued with its message or not at all: a lost claim writes nothing.
    if (workflowStep && !this.workflows.holds(workflowStep)) return ended;
    const outcome = checked();
    if (workflowStep) this.workflows.markSent(workflowStep, now);
    if (outbox) {
      this.queueMessage(outbox, pinId, pin.accountId, channel, now, now, false);
      pin.sendCount += 1;
      pin.deliveryStatus = 'queued';
    }
    return outcome;
  }

  private queueMessage(outbox: { id: string; request: DeliveryRequest }, pinId: string, accountId: string, channel: Channel, now: number, eventAt: number, own: boolean): void {
    if (this.messages.has(outbox.id)) throw new Error(`duplicate message ${outbox.id}`);
    this.messages.set(outbox.id, {
      id: outbox.id, pinId, accountId, channel, request: copy(outbox.request), own, state: 'pending', attempts: 0, dueAt: now, leaseUntil: 0, leaseHolder: null,
      error: null, createdAt: now, updatedAt: now, transport: null, providerMessageId: null,
    });
    this.addHistory(pinId, accountId, own, { at: eventAt, event: 'queued', channel, transport: null, providerMessageId: null, error: null });
  }

  private addHistory(pinId: string, accountId: string, withPin: boolean, event: DeliveryEvent): void {
    this.history.push({ seq: ++this.historySeq, pinId, accountId, withPin, event });
  }

  async getPin(accountId: string, pinId: string): Promise<PinRecord | undefined> {
    const pin = this.pins.get(pinId);
    return pin?.accountId === accountId ? copy(pin) : undefined;
  }

  async getPinToVerify(accountId: string, pinId: string): Promise<{ pin: PinRecord; application: ApplicationRecord | undefined } | undefined> {
    const pin = await this.getPin(accountId, pinId);
    return pin && { pin, application: await this.getApplication(accountId, pin.applicationId) };
  }

  async consumeRateLimits(limits: RateLimitCheck[], now: number): Promise<RateLimitOutcome> {
    return this.limits.consume(limits, now);
  }

  async peekRateLimit(check: RateLimitCheck, now: number): Promise<number> {
    return this.limits.peek(check, now);
  }

  async verifyPinAttempt(pin: PinToVerify, now: number, limits: RateLimitCheck[], matches: (pinHash: string) => boolean, audit: (attempt: VerifyAttempt) => AuditAppend): Promise<AuditedVerifyAttempt> {
    // One synchronous section: the limit, the attempt, the verified mark or the lock, and the audit entry.
    const attempt = this.decideAttempt(pin, now, limits, matches);
    const { entry, seal } = audit(attempt);
    this.audit.appendNow(entry, seal);
    return { ...attempt, audited: true };
  }

  private decideAttempt(pin: PinToVerify, now: number, limits: RateLimitCheck[], matches: (pinHash: string) => boolean): VerifyAttempt {
    const outcome = this.limits.consume(limits, now);
    if (!outcome.allowed) return { kind: 'refused', outcome };
    const row = this.pins.get(pin.id);
    // The first race gate: an attempt is counted only on a live PIN with attempts left, before the comparison.
    if (!row || !acceptsAttempt(row, now)) {
      return { kind: 'ended', pin: row?.accountId === pin.accountId ? copy(row) : undefined };
    }
    row.attemptsLeft -= 1;
    const counted = copy(row);
    if (matches(row.pinHash)) {
      // The second race gate: without multiple verifications only the request that sets verifiedAt wins.
      const won = row.allowMultipleVerifications || row.verifiedAt === null;
      if (won) {
        row.verifiedAt ??= now;
        row.pinCiphertext = null;
        this.events.enqueuePinEvent('pin.verified', pin.id, now, { status: 'verified' });
      }
      return { kind: 'counted', pin: counted, matched: true, verified: won };
    }
    if (row.attemptsLeft === 0 && row.lockedAt === null) {
      row.lockedAt = now;
      row.pinCiphertext = null;
      this.events.enqueuePinEvent('pin.locked', pin.id, now, { status: 'locked' });
    }
    return { kind: 'counted', pin: counted, matched: false, verified: false };
  }

  async listVerifications(accountId: string, applicationId: string, destination: string, filter: { verified?: boolean; sent?: boolean }, limit: number): Promise<VerificationRow[]> {
    return [...this.pins.values()]
      .filter((p) => p.accountId === accountId && p.applicationId === applicationId && p.destination === destination
        && (filter.verified === undefined || (p.verifiedAt !== null) === filter.verified) && (filter.sent === undefined || (p.sentAt !== null) === filter.sent))
      .sort((x, y) => y.createdAt - x.createdAt).slice(0, limit)
      .map((p) => ({ destination: p.destination, verifiedAt: p.verifiedAt, sentAt: p.sentAt }));
  }

  // --- outbox ---

  async claimOutbox(now: number, leaseUntil: number, max: number, holder: string | null = null): Promise<OutboxRecord[]> {
    // Oldest first, so that messages queued one after the other are handed over in that order.
    const due = [...this.messages.values()].filter((m) => m.state === 'pending' && m.dueAt <= now && m.leaseUntil <= now)
      .sort((x, y) => x.dueAt - y.dueAt || x.createdAt - y.createdAt).slice(0, max);
    return due.map((m) => {
      m.leaseUntil = leaseUntil;
      m.leaseHolder = holder;
      m.attempts += 1;
      if (!m.own) m.updatedAt = now;
      const pin = this.pins.get(m.pinId);
      return {
        id: m.id, pinId: m.pinId, accountId: m.accountId, channel: m.channel, request: copy(m.request), attempts: m.attempts, createdAt: m.createdAt,
        ...(m.own && pin ? { pin: copy(pin) } : {}),
      };
    });
  }

  /** The message `id` of PIN `pinId`, if there is one. */
  private messageOf(id: string, pinId: string): MessageRow | undefined {
    const message = this.messages.get(id);
    return message?.pinId === pinId ? message : undefined;
  }

  async completeOutbox(id: string, pinId: string, now: number, accepted?: AcceptedMessage): Promise<{ audited: boolean }> {
    const transport = accepted?.transport ?? null;
    const providerMessageId = accepted?.providerMessageId ?? null;
    const message = this.messageOf(id, pinId);
    if (message) {
      Object.assign(message, { state: 'done', error: null, updatedAt: now, transport, providerMessageId });
      // The first message has one `sent` entry, kept on the PIN's row in the database stores.
      if (message.own) this.removeHistory((h) => h.pinId === pinId && h.withPin && h.event.event === 'sent');
      this.addHistory(pinId, message.accountId, message.own, { at: now, event: 'sent', channel: message.channel, transport, providerMessageId, error: null });
    }
    const pin = this.pins.get(pinId);
    if (pin) Object.assign(pin, { deliveryStatus: 'sent', deliveryError: null, sentAt: pin.sentAt ?? now, deliveryTransport: transport, providerMessageId });
    this.events.enqueuePinEvent('pin.sent', pinId, now, { status: 'sent', transport });
    return { audited: false };
  }

  async retryOutbox(id: string, pinId: string, nextAttemptAt: number, error: string, now: number): Promise<void> {
    const message = this.messageOf(id, pinId);
    if (!message) return;
    Object.assign(message, { dueAt: nextAttemptAt, leaseUntil: 0, error }, message.own ? {} : { updatedAt: now });
    this.addHistory(pinId, message.accountId, false, { at: now, event: 'retried', channel: message.channel, transport: null, providerMessageId: null, error });
  }

  async failOutbox(id: string, pinId: string, error: string, now: number, state: 'failed' | 'cancelled'): Promise<{ audited: boolean }> {
    const message = this.messageOf(id, pinId);
    if (message) {
      Object.assign(message, { state, error }, message.own ? {} : { updatedAt: now });
      this.addHistory(pinId, message.accountId, false, { at: now, event: state, channel: message.channel, transport: null, providerMessageId: null, error });
    }
    const pin = this.pins.get(pinId);
    // A failed resend does not undo an earlier successful delivery of the same PIN.
    if (state === 'failed' && pin && pin.sentAt === null) {
      Object.assign(pin, { deliveryStatus: 'failed', deliveryError: error });
      this.events.enqueuePinEvent('pin.failed', pinId, now, { status: 'failed', error });
    }
    return { audited: false };
  }

  async releaseOutbox(messages: { id: string; pinId: string }[], now: number): Promise<void> {
    for (const { id, pinId } of messages) {
      const message = this.messageOf(id, pinId);
      if (message?.state !== 'pending') continue;
      message.leaseUntil = 0;
      if (!message.own) message.updatedAt = now;
    }
  }

  async renewOutbox(messages: { id: string; pinId: string; attempts: number }[], holder: string, leaseUntil: number): Promise<number> {
    // As the database stores: the holder of this very claim (its attempt count), a lease not given back.
    let renewed = 0;
    for (const { id, pinId, attempts } of messages) {
      const message = this.messageOf(id, pinId);
      if (message?.state !== 'pending' || message.leaseHolder !== holder || message.attempts !== attempts || message.leaseUntil <= 0) continue;
      message.leaseUntil = leaseUntil;
      renewed += 1;
    }
    return renewed;
  }

  async releaseHeldOutbox(holder: string, now: number, keep: { id: string; pinId: string }[] = []): Promise<number> {
    let released = 0;
    const kept = new Set(keep.map((m) => m.id));
    for (const message of this.messages.values()) {
      if (message.state !== 'pending' || message.leaseHolder !== holder || message.leaseUntil <= now || kept.has(message.id)) continue;
      message.leaseUntil = 0;
      if (!message.own) message.updatedAt = now;
      released += 1;
    }
    return released;
  }

  async countPendingOutbox(): Promise<number> {
    return [...this.messages.values()].filter((m) => m.state === 'pending').length;
  }

  async countLiveNodes(): Promise<number> {
    return 1;
  }

  async oldestPendingOutboxAt(): Promise<number | undefined> {
    let oldest: number | undefined;
    for (const m of this.messages.values()) if (m.state === 'pending' && (oldest === undefined || m.createdAt < oldest)) oldest = m.createdAt;
    return oldest;
  }

  /** The message a receipt names: a PIN's own (first) message before a later one. */
  private messageOfReceipt(receipt: Pick<ReceiptInput, 'transport' | 'providerMessageId'>): MessageRow | undefined {
    const matching = [...this.messages.values()].filter((m) => m.providerMessageId === receipt.providerMessageId && m.transport === receipt.transport);
    return matching.find((m) => m.own) ?? matching[0];
  }

  async findReceiptMessage(receipt: Pick<ReceiptInput, 'transport' | 'providerMessageId'>): Promise<ReceiptMessage | undefined> {
    const message = this.messageOfReceipt(receipt);
    return message && { pinId: message.pinId, accountId: message.accountId, channel: message.channel, request: copy(message.request) };
  }

  async recordReceipt(receipt: ReceiptInput, options: ReceiptOptions = {}): Promise<{ pinId: string; accountId: string; requeued: boolean } | undefined> {
    const message = this.messageOfReceipt(receipt);
    if (!message) return undefined;
    const pin = this.pins.get(message.pinId);
    // A provider may repeat a receipt: the repetition changes the history, never the events or the route.
    const repeated = pin?.deliveryStatus === receipt.status && pin.providerMessageId === receipt.providerMessageId;
    // Only the receipt for the latest message counts: a late receipt of an earlier send does not overwrite it.
    const applied = pin !== undefined && pin.providerMessageId === receipt.providerMessageId;
    if (applied) {
      Object.assign(pin, {
        deliveryStatus: receipt.status,
        deliveredAt: receipt.status === 'delivered' ? receipt.at : null,
        deliveryError: receipt.status === 'undelivered' ? (receipt.error ?? 'undelivered') : null,
      });
    }
    this.addHistory(message.pinId, message.accountId, false, {
      at: receipt.at, event: receipt.status, channel: message.channel, transport: receipt.transport, providerMessageId: receipt.providerMessageId, error: receipt.error ?? null,
    });
    const current = applied && !repeated;
    const now = options.now ?? receipt.at;
    const requeued = current && receipt.status === 'undelivered' && options.requeue !== undefined && this.requeueMessage(message, receipt.at, options.requeue, now);
    // Events follow the PIN's latest message only; an undelivered one that is sent again is not a failure yet.
    if (current && receipt.status === 'delivered') {
      this.events.enqueuePinEvent('pin.delivered', message.pinId, now, { status: 'delivered', transport: receipt.transport });
    } else if (current && !requeued && !this.hasPendingMessage(message.pinId)) {
      this.events.enqueuePinEvent('pin.failed', message.pinId, now, { status: 'undelivered', error: receipt.error ?? 'undelivered', transport: receipt.transport });
    }
    return { pinId: message.pinId, accountId: message.accountId, requeued };
  }

  /**
   * Queues the message of an undelivered receipt again with the request the caller chose: only while
   * the PIN still names that message, is live and has nothing else queued.
   */
  private requeueMessage(message: MessageRow, receiptAt: number, request: DeliveryRequest, now: number): boolean {
    const pin = this.pins.get(message.pinId);
    if (!pin || !isDeliverable(pin, now)) return false;
    if (this.hasPendingMessage(message.pinId)) return false;
    // The history sorts by time: the new message follows the receipt even when the provider's clock is ahead.
    this.queueMessage({ id: randomUUID(), request }, message.pinId, message.accountId, message.channel, now, Math.max(now, receiptAt), false);
    // The PIN no longer names the undelivered message, so a repeated or late receipt of it changes nothing.
    Object.assign(pin, { deliveryStatus: 'queued', deliveryTransport: null, providerMessageId: null });
    return true;
  }

  private hasPendingMessage(pinId: string): boolean {
    return [...this.messages.values()].some((m) => m.pinId === pinId && m.state === 'pending');
  }

  async listDeliveryEvents(accountId: string, pinId: string): Promise<DeliveryEvent[]> {
    // By time, then in the order written.
    return this.history.filter((h) => h.pinId === pinId && h.accountId === accountId)
      .sort((x, y) => x.event.at - y.event.at || x.seq - y.seq).map((h) => copy(h.event));
  }

  private removeHistory(which: (h: HistoryRow) => boolean): number {
    let removed = 0;
    for (let i = this.history.length - 1; i >= 0; i--) {
      if (which(this.history[i]!)) {
        this.history.splice(i, 1);
        removed += 1;
      }
    }
    return removed;
  }

  // --- housekeeping ---

  /** The steps of purge.ts, in its order and with its batch bounds (firstBatches). */
  async purge(now: number, retentionMs: number, limits: PurgeLimits = PURGE_LIMITS): Promise<{ erased: number; deleted: number }> {
    const expired = this.events.expirePins(now);
    const subscribed = this.events.expirySubscribers();
    const erasing = firstBatches([...this.pins.values()].filter((p) => p.expiresAt <= now && p.pinCiphertext !== null && !subscribed.has(p.accountId))
      .sort((x, y) => x.expiresAt - y.expiresAt), limits);
    for (const pin of erasing) pin.pinCiphertext = null;
    // Messages of PINs that expired before they could be delivered are of no use to anyone.
    const expiredPin = (m: MessageRow) => (this.pins.get(m.pinId)?.expiresAt ?? Infinity) <= now;
    const pending = [...this.messages.values()].filter((m) => m.state === 'pending' && expiredPin(m));
    for (const m of firstBatches(pending.filter((m) => m.own && m.dueAt <= now).sort((x, y) => x.dueAt - y.dueAt), limits)) {
      Object.assign(m, { state: 'cancelled', error: 'PIN expired before delivery' });
    }
    for (const m of firstBatches(pending.filter((m) => !m.own), limits)) Object.assign(m, { state: 'cancelled', error: 'PIN expired before delivery', updatedAt: now });
    const cutoff = now - retentionMs;
    this.events.purgeEnded(cutoff, limits);
    const deleting = firstBatches([...this.pins.values()].filter((p) => p.expiresAt <= cutoff).sort((x, y) => x.expiresAt - y.expiresAt), limits);
    for (const pin of deleting) {
      this.pins.delete(pin.id);
      this.pinCountries.delete(pin.id);
      // The first message and its history entries are part of the PIN's row in the database stores.
      for (const m of this.messages.values()) if (m.own && m.pinId === pin.id) this.messages.delete(m.id);
      this.removeHistory((h) => h.withPin && h.pinId === pin.id);
    }
    const endedMessages = [...this.messages.values()].filter((m) => !m.own && m.state !== 'pending' && m.updatedAt <= cutoff).sort((x, y) => x.updatedAt - y.updatedAt);
    for (const m of firstBatches(endedMessages, limits)) this.messages.delete(m.id);
    const oldHistory = new Set(firstBatches(this.history.filter((h) => !h.withPin && h.event.at <= cutoff).sort((x, y) => x.event.at - y.event.at), limits));
    this.removeHistory((h) => oldHistory.has(h));
    this.limits.purge(now, limits);
    await this.idempotency.purge(now, limits);
    await this.factors.purge(cutoff, now - UNVERIFIED_FACTOR_TTL_MS);
    return { erased: expired + erasing.length, deleted: deleting.length };
  }
}

/** A template's autofill is absent, never null, as the database stores read it. */
function withoutEmptyAutofill(template: MessageTemplateRecord): MessageTemplateRecord {
  if (template.kind !== 'sms_voice') return template;
  // So are its empty locale texts, a missing name and a false default flag.
  if (!template.autofill) delete template.autofill;
  if (!template.texts?.length) delete template.texts;
  if (template.name == null) delete template.name;
  if (template.isDefault !== true) delete template.isDefault;
  return template;
}
