// The sub-stores of the in-memory store (memory-store.ts): events, anti-fraud settings, the audit
// chain and its heads, idempotency keys, test numbers and workflow steps, each following the rules of
// its database implementation beside it in src/store/. Every change is made synchronously, so a
// method that does not await in the middle is as atomic as the database's statement or transaction.
import { randomUUID } from 'node:crypto';
import type { AuditHead } from '../../domain/audit-head.js';
import type { Channel } from '../../domain/channels.js';
import { ALL_PIN_EVENTS, subscribesTo, type AccountEventType, type PinEventType } from '../../domain/pin-events.js';
import type { WorkflowStep } from '../../domain/workflows.js';
import { chainEntry, type AuditEntry, type AuditEntryInput, type AuditFilter, type AuditSeal, type AuditStore } from '../audit-store.js';
import type { AuditHeadStore, ChainTip } from '../audit-head-store.js';
import {
  EXPIRED_EVENTS_PER_PURGE, pinEventRows, type EventOutboxRecord, type EventStore, type PinEventDetails, type TwilioWebhookTarget, type VonageCallbackTarget,
  type WebhookSubscriptionChanges, type WebhookSubscriptionRecord,
} from '../event-store.js';
import type { IdempotencyClaim, IdempotencyClaimRequest, IdempotencyStore } from '../idempotency-store.js';
import type { PurgeLimits } from '../purge-batches.js';
import type { ActiveBlock, SecuritySettingsRow, SecurityStore } from '../security-store.js';
import type { RiskCounterRead, RiskDecisionQuery, RiskDecisionRecord, RiskSavingsQuery, RiskSavingsRow, RiskSettingsRow, RiskStore, RiskWrite } from '../risk-store.js';
import type { DeliveryRequest, PinRecord } from '../store.js';
import type { TestNumberRecord, TestNumberStore } from '../test-number-store.js';
import type { NewWorkflowStep, WorkflowStepClaim, WorkflowStepRecord, WorkflowStepState, WorkflowStore } from '../workflow-store.js';
import { firstBatches } from './memory-limits.js';

const copy = <T>(value: T): T => structuredClone(value);

/** Thrown by the parts of the Store the in-memory store does not keep (see MemoryStore). */
export class NotKeptInMemory extends Error {
  constructor(what: string) {
    super(`${what} is not kept by the in-memory store (src/store/memory/): use a SQLite or PostgreSQL store`);
  }
}

// --- events ---

interface EventRow extends EventOutboxRecord {
  state: 'pending' | 'done' | 'failed' | 'cancelled';
  nextAttemptAt: number;
  leaseUntil: number;
  /** The node that claimed it last. */
  leaseHolder: string | null;
  lastError: string | null;
  updatedAt: number;
}

export class MemoryEventStore implements EventStore {
  private readonly subscriptions = new Map<string, WebhookSubscriptionRecord>();
  private readonly outbox = new Map<string, EventRow>();

  /** `pins`: the store's PINs, read (never changed) for what an event says of its PIN. */
  constructor(private readonly pins: Map<string, PinRecord>) {}

  async insertSubscription(subscription: WebhookSubscriptionRecord): Promise<void> {
    if (this.subscriptions.has(subscription.id)) throw new Error(`duplicate webhook subscription ${subscription.id}`);
    this.subscriptions.set(subscription.id, copy(subscription));
  }

  async getSubscription(accountId: string, id: string): Promise<WebhookSubscriptionRecord | undefined> {
    const s = this.subscriptions.get(id);
    return s?.accountId === accountId ? copy(s) : undefined;
  }

  async listSubscriptions(accountId: string): Promise<WebhookSubscriptionRecord[]> {
    return [...this.subscriptions.values()].filter((s) => s.accountId === accountId)
      .sort((x, y) => x.createdAt - y.createdAt || compare(x.id, y.id)).map(copy);
  }

  async updateSubscription(accountId: string, id: string, changes: WebhookSubscriptionChanges, now: number): Promise<WebhookSubscriptionRecord | undefined> {
    const s = this.subscriptions.get(id);
    if (s?.accountId !== accountId) return undefined;
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    Object.assign(s, copy(defined), { updatedAt: now });
    return copy(s);
  }

  async deleteSubscription(accountId: string, id: string): Promise<boolean> {
    if (this.subscriptions.get(id)?.accountId !== accountId) return false;
    this.subscriptions.delete(id);
    for (const [eventId, e] of this.outbox) if (e.subscriptionId === id) this.outbox.delete(eventId);
    return true;
  }

  async findSubscriptions(ids: string[]): Promise<WebhookSubscriptionRecord[]> {
    return ids.flatMap((id) => (this.subscriptions.has(id) ? [copy(this.subscriptions.get(id)!)] : []));
  }

  async findTwilioWebhook(sid: string): Promise<TwilioWebhookTarget | undefined> {
    void sid;
    throw new NotKeptInMemory('a Twilio Verify Webhook');
  }

  async findVonageCallbackTarget(applicationId: string): Promise<VonageCallbackTarget | undefined> {
    void applicationId;
    throw new NotKeptInMemory('a Vonage application');
  }

  async findPreludeCallbackUrl(pinId: string): Promise<string | undefined> {
    void pinId;
    throw new NotKeptInMemory('a Prelude verification');
  }

  /** No dialect rows are kept in memory, so no dialect callback is ever due. */
  async queueDialectCallbacks(now: number): Promise<number> {
    void now;
    return 0;
  }

  async listSecretCiphertexts(): Promise<{ id: string; secretCiphertext: string }[]> {
    return [...this.subscriptions.values()].map((s) => ({ id: s.id, secretCiphertext: s.secretCiphertext }));
  }

  async replaceSecretCiphertext(id: string, previous: string, next: string): Promise<void> {
    const s = this.subscriptions.get(id);
    if (s?.secretCiphertext === previous) s.secretCiphertext = next;
  }

  async enqueueAccountEvent(accountId: string, type: AccountEventType, payload: string, now: number, pinId = ''): Promise<number> {
    const targets = [...this.subscriptions.values()].filter((s) => s.enabled && s.accountId === accountId && subscribesTo(s.events, type));
    for (const s of targets) {
      const id = randomUUID();
      this.outbox.set(id, {
        id, accountId, subscriptionId: s.id, type, pinId, payload, attempts: 0, createdAt: now,
        state: 'pending', nextAttemptAt: now, leaseUntil: 0, leaseHolder: null, lastError: null, updatedAt: now,
      });
    }
    return targets.length;
  }

  /** Queues `type` about a PIN for every enabled subscription of its account to that type; returns how many. */
  enqueuePinEvent(type: PinEventType, pinId: string, now: number, details: PinEventDetails): number {
    const pin = this.pins.get(pinId);
    if (!pin) return 0;
    const subscribers = [...this.subscriptions.values()].filter((s) => s.enabled && s.accountId === pin.accountId).map((s) => ({
      subscription_id: s.id, events: s.events.join(' '), account_id: pin.accountId, application_id: pin.applicationId, message_id: pin.messageId,
      channel: pin.channel, destination: pin.destination, attempts_left: pin.attemptsLeft, test_number: pin.testNumber ? 1 : 0,
      // The in-memory store scores nothing (service tests keep the risk score off): no summary to carry.
      risk: null,
    }));
    const rows = pinEventRows(type, pinId, now, details, subscribers);
    for (const r of rows) {
      this.outbox.set(r.id, {
        id: r.id, accountId: r.account_id, subscriptionId: r.subscription_id, type, pinId, payload: r.payload, attempts: 0, createdAt: now,
        state: 'pending', nextAttemptAt: now, leaseUntil: 0, leaseHolder: null, lastError: null, updatedAt: now,
      });
    }
    return rows.length;
  }

  /** Accounts with an enabled subscription that receives pin.expired (their expired PINs each get the event). */
  expirySubscribers(): Set<string> {
    return new Set([...this.subscriptions.values()].filter((s) => s.enabled && (s.events.includes('pin.expired') || s.events.includes(ALL_PIN_EVENTS))).map((s) => s.accountId));
  }

  /** Ends expired, unverified, unlocked PINs of subscribed accounts: erases their ciphertext and queues pin.expired (at most `limit`). */
  expirePins(now: number, limit = EXPIRED_EVENTS_PER_PURGE): number {
    const subscribed = this.expirySubscribers();
    const ending = [...this.pins.values()]
      .filter((p) => p.expiresAt <= now && p.pinCiphertext !== null && p.verifiedAt === null && p.lockedAt === null && subscribed.has(p.accountId))
      .sort((x, y) => x.expiresAt - y.expiresAt).slice(0, limit);
    for (const pin of ending) {
      pin.pinCiphertext = null;
      this.enqueuePinEvent('pin.expired', pin.id, now, { status: 'expired' });
    }
    return ending.length;
  }

  /** Deletes events that ended before `cutoff`, in batches. */
  purgeEnded(cutoff: number, limits: PurgeLimits): void {
    const ended = [...this.outbox.values()].filter((e) => e.state !== 'pending' && e.updatedAt <= cutoff).sort((x, y) => x.updatedAt - y.updatedAt);
    for (const e of firstBatches(ended, limits)) this.outbox.delete(e.id);
  }

  async claim(now: number, leaseUntil: number, max: number, holder: string | null = null): Promise<EventOutboxRecord[]> {
    const due = [...this.outbox.values()].filter((e) => e.state === 'pending' && e.nextAttemptAt <= now && e.leaseUntil <= now)
      .sort((x, y) => x.nextAttemptAt - y.nextAttemptAt || x.createdAt - y.createdAt).slice(0, max);
    return due.map((e) => {
      Object.assign(e, { leaseUntil, leaseHolder: holder, attempts: e.attempts + 1, updatedAt: now });
      return { id: e.id, accountId: e.accountId, subscriptionId: e.subscriptionId, type: e.type, pinId: e.pinId, payload: e.payload, attempts: e.attempts, createdAt: e.createdAt };
    });
  }

  async complete(id: string, now: number): Promise<void> {
    const e = this.outbox.get(id);
    if (e) Object.assign(e, { state: 'done', lastError: null, updatedAt: now });
  }

  async retry(id: string, nextAttemptAt: number, error: string, now: number): Promise<void> {
    const e = this.outbox.get(id);
    if (e?.state === 'pending') Object.assign(e, { nextAttemptAt, leaseUntil: 0, lastError: error, updatedAt: now });
  }

  async fail(id: string, error: string, now: number, state: 'failed' | 'cancelled'): Promise<void> {
    const e = this.outbox.get(id);
    if (e) Object.assign(e, { state, lastError: error, updatedAt: now });
  }

  async release(ids: string[], now: number): Promise<void> {
    for (const id of ids) {
      const e = this.outbox.get(id);
      if (e?.state === 'pending') Object.assign(e, { leaseUntil: 0, updatedAt: now });
    }
  }

  async renew(events: { id: string; attempts: number }[], holder: string, leaseUntil: number): Promise<number> {
    let renewed = 0;
    for (const { id, attempts } of events) {
      const e = this.outbox.get(id);
      if (e?.state !== 'pending' || e.leaseHolder !== holder || e.attempts !== attempts || e.leaseUntil <= 0) continue;
      e.leaseUntil = leaseUntil;
      renewed += 1;
    }
    return renewed;
  }

  async releaseHeld(holder: string, now: number, keep: string[] = []): Promise<number> {
    let released = 0;
    for (const e of this.outbox.values()) {
      if (e.state !== 'pending' || e.leaseHolder !== holder || e.leaseUntil <= now || keep.includes(e.id)) continue;
      Object.assign(e, { leaseUntil: 0, updatedAt: now });
      released += 1;
    }
    return released;
  }

  async countPending(): Promise<number> {
    return [...this.outbox.values()].filter((e) => e.state === 'pending').length;
  }
}

// --- anti-fraud settings, blocks and conversion counters ---

export class MemorySecurityStore implements SecurityStore {
  private readonly settings = new Map<string, SecuritySettingsRow & { accountId: string }>();
  private readonly blocks = new Map<string, { applicationId: string; scope: string; blockedUntil: number; reason: string }>();
  private readonly conversions = new Map<string, { applicationId: string; country: string; bucketStart: number; sends: number; verifies: number }>();

  async getSettings(applicationId: string): Promise<SecuritySettingsRow | undefined> {
    const row = this.settings.get(applicationId);
    return row && { settings: row.settings, updatedAt: row.updatedAt };
  }

  async putSettings(accountId: string, applicationId: string, settings: string, now: number): Promise<void> {
    this.settings.set(applicationId, { accountId, settings, updatedAt: now });
  }

  async activeBlock(applicationId: string, scope: string, now: number): Promise<ActiveBlock | undefined> {
    const b = this.blocks.get(key(applicationId, scope));
    return b && b.blockedUntil > now ? { scope: b.scope, blockedUntil: b.blockedUntil, reason: b.reason } : undefined;
  }

  async addBlock(applicationId: string, scope: string, until: number, reason: string, now: number): Promise<void> {
    void now;
    this.blocks.set(key(applicationId, scope), { applicationId, scope, blockedUntil: until, reason });
  }

  async listBlocks(applicationId: string, now: number): Promise<ActiveBlock[]> {
    return [...this.blocks.values()].filter((b) => b.applicationId === applicationId && b.blockedUntil > now)
      .sort((x, y) => compare(x.scope, y.scope)).map((b) => ({ scope: b.scope, blockedUntil: b.blockedUntil, reason: b.reason }));
  }

  async countConversion(applicationId: string, country: string, kind: 'send' | 'verify', bucketStart: number): Promise<void> {
    const k = key(applicationId, country, String(bucketStart));
    const row = this.conversions.get(k) ?? { applicationId, country, bucketStart, sends: 0, verifies: 0 };
    if (kind === 'send') row.sends += 1;
    else row.verifies += 1;
    this.conversions.set(k, row);
  }

  async conversionSince(applicationId: string, country: string, since: number): Promise<{ sends: number; verifies: number }> {
    const rows = [...this.conversions.values()].filter((r) => r.applicationId === applicationId && r.country === country && r.bucketStart > since);
    return { sends: rows.reduce((n, r) => n + r.sends, 0), verifies: rows.reduce((n, r) => n + r.verifies, 0) };
  }

  async purge(now: number, before: number): Promise<void> {
    for (const [k, b] of this.blocks) if (b.blockedUntil <= now) this.blocks.delete(k);
    for (const [k, r] of this.conversions) if (r.bucketStart <= before) this.conversions.delete(k);
  }
}

// --- the risk score's settings, counters and decisions ---

export class MemoryRiskStore implements RiskStore {
  private readonly settings = new Map<string, RiskSettingsRow>();
  private readonly counters = new Map<string, { applicationId: string; counter: string; bucketStart: number; hits: number; recent: boolean }>();
  private readonly decisions: RiskDecisionRecord[] = [];

  async getSettings(applicationId: string): Promise<RiskSettingsRow | undefined> {
    const row = this.settings.get(applicationId);
    return row && structuredClone(row);
  }

  async putSettings(accountId: string, applicationId: string, settings: Omit<RiskSettingsRow, 'updatedAt'>, now: number): Promise<void> {
    void accountId;
    this.settings.set(applicationId, { ...structuredClone(settings), updatedAt: now });
  }

  async readCounters(applicationId: string, reads: readonly RiskCounterRead[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const r of reads) {
      let hits = 0;
      for (const c of this.counters.values()) if (c.applicationId === applicationId && c.counter === r.counter && c.bucketStart > r.since) hits += c.hits;
      counts.set(r.counter, hits);
    }
    return counts;
  }

  async write(write: RiskWrite): Promise<void> {
    this.apply(write);
  }

  /** `write` at once: Store.createPin's part of a send, in the same turn as its PIN. */
  apply({ applicationId, hits, decision }: RiskWrite): void {
    for (const h of hits) {
      const k = key(applicationId, h.counter, String(h.bucketStart));
      const row = this.counters.get(k) ?? { applicationId, counter: h.counter, bucketStart: h.bucketStart, hits: 0, recent: h.recent === true };
      row.hits += 1;
      this.counters.set(k, row);
    }
    if (decision) this.decisions.push(structuredClone(decision));
  }

  async listDecisions(accountId: string, q: RiskDecisionQuery): Promise<RiskDecisionRecord[]> {
    const before = q.before;
    return this.decisions.filter((d) => d.accountId === accountId
      && (q.applicationId === undefined || d.applicationId === q.applicationId)
      && (q.country === undefined || d.country === q.country)
      && (q.decision === undefined || d.decision === q.decision)
      && (q.since === undefined || d.createdAt >= q.since)
      && (q.until === undefined || d.createdAt < q.until)
      && (!before || d.createdAt < before.createdAt || (d.createdAt === before.createdAt && d.id < before.id)))
      .sort((a, b) => b.createdAt - a.createdAt || compare(b.id, a.id)).slice(0, q.limit).map((d) => structuredClone(d));
  }

  async savings(accountId: string, q: RiskSavingsQuery): Promise<RiskSavingsRow[]> {
    const byCurrency = new Map<string | null, RiskSavingsRow>();
    for (const d of this.decisions) {
      if (d.accountId !== accountId || (d.decision !== 'block' && d.decision !== 'shadow_block')) continue;
      if ((q.applicationId !== undefined && d.applicationId !== q.applicationId) || (q.since !== undefined && d.createdAt < q.since) || (q.until !== undefined && d.createdAt >= q.until)) continue;
      const currency = d.price?.currency ?? null;
      const row = byCurrency.get(currency) ?? { currency, blockedMicros: 0, shadowBlockedMicros: 0, blocks: 0, shadowBlocks: 0 };
      if (d.decision === 'block') {
        row.blocks += 1;
        row.blockedMicros += d.price?.amountMicros ?? 0;
      } else {
        row.shadowBlocks += 1;
        row.shadowBlockedMicros += d.price?.amountMicros ?? 0;
      }
      byCurrency.set(currency, row);
    }
    return [...byCurrency.values()].sort((a, b) => (a.currency === null ? -1 : b.currency === null ? 1 : compare(a.currency, b.currency)));
  }

  async summaryOfPin(accountId: string, pinId: string): Promise<string | undefined> {
    void accountId;
    void pinId;
    // The in-memory store keeps no summary on its PINs (service tests keep the score off).
    return undefined;
  }

  async decisionOfPin(accountId: string, pinId: string): Promise<RiskDecisionRecord | undefined> {
    const found = this.decisions.filter((d) => d.accountId === accountId && d.pinId === pinId).sort((a, b) => b.createdAt - a.createdAt || compare(b.id, a.id))[0];
    return found && structuredClone(found);
  }

  async purge(countersBefore: number, decisionsBefore: number, recentBefore: number): Promise<void> {
    for (const [k, c] of this.counters) if (c.bucketStart < (c.recent ? recentBefore : countersBefore)) this.counters.delete(k);
    for (let i = this.decisions.length - 1; i >= 0; i--) if (this.decisions[i]!.createdAt < decisionsBefore) this.decisions.splice(i, 1);
  }
}

// --- the audit chain and its heads ---

export class MemoryAuditStore implements AuditStore {
  private readonly chains = new Map<string, AuditEntry[]>();
  readonly heads: MemoryAuditHeadStore;

  constructor() {
    this.heads = new MemoryAuditHeadStore(this.chains);
  }

  async append(entry: AuditEntryInput, seal: AuditSeal): Promise<AuditEntry> {
    return this.appendNow(entry, seal);
  }

  /** Appends at once (no await between reading the chain's head and adding to it): the store's transactions call it. */
  appendNow(input: AuditEntryInput, seal: AuditSeal): AuditEntry {
    let chain = this.chains.get(input.accountId);
    if (!chain) this.chains.set(input.accountId, (chain = []));
    const last = chain.at(-1);
    const entry = chainEntry(input, (last?.seq ?? 0) + 1, last?.hash ?? '', seal);
    chain.push(entry);
    return copy(entry);
  }

  async list(accountId: string, filter: AuditFilter, limit: number): Promise<AuditEntry[]> {
    return (this.chains.get(accountId) ?? []).filter((e) => (filter.applicationId === undefined || e.applicationId === filter.applicationId)
      && (filter.pinId === undefined || e.pinId === filter.pinId) && (filter.event === undefined || e.event === filter.event)
      && (filter.afterSeq === undefined || e.seq > filter.afterSeq)).slice(0, limit).map(copy);
  }

  async accounts(): Promise<string[]> {
    return [...this.chains.keys()].filter((a) => this.chains.get(a)!.length > 0).sort(compare);
  }
}

export class MemoryAuditHeadStore implements AuditHeadStore {
  private readonly recorded = new Map<string, AuditHead>();

  constructor(private readonly chains: Map<string, AuditEntry[]>) {}

  async tips(): Promise<ChainTip[]> {
    return [...this.chains.keys()].sort(compare).flatMap((accountId) => {
      const last = this.chains.get(accountId)!.at(-1);
      return last ? [{ accountId, seq: last.seq, hash: last.hash }] : [];
    });
  }

  async tip(accountId: string): Promise<ChainTip | undefined> {
    const last = this.chains.get(accountId)?.at(-1);
    return last && { accountId, seq: last.seq, hash: last.hash };
  }

  async entryHash(accountId: string, seq: number): Promise<string | undefined> {
    return this.chains.get(accountId)?.find((e) => e.seq === seq)?.hash;
  }

  async list(): Promise<AuditHead[]> {
    return [...this.recorded.values()].sort((x, y) => compare(x.accountId, y.accountId)).map(copy);
  }

  async record(head: AuditHead): Promise<boolean> {
    const current = this.recorded.get(head.accountId);
    // A head only moves forward: an older or equal one never replaces a newer one.
    if (current && current.seq >= head.seq) return false;
    this.recorded.set(head.accountId, copy(head));
    return true;
  }
}

// --- idempotency keys ---

interface IdempotencyRow {
  accountId: string;
  fingerprint: string;
  leaseToken: string;
  leaseUntil: number;
  status: number | null;
  answer: string | null;
  expiresAt: number;
}

export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly keys = new Map<string, IdempotencyRow>();

  async claim(request: IdempotencyClaimRequest): Promise<IdempotencyClaim> {
    const { id, accountId, fingerprint, token, now, leaseUntil, expiresAt } = request;
    const fresh: IdempotencyRow = { accountId, fingerprint, leaseToken: token, leaseUntil, status: null, answer: null, expiresAt };
    const row = this.keys.get(id);
    if (!row) {
      const live = [...this.keys.values()].filter((r) => r.accountId === accountId && r.expiresAt > now);
      if (live.length >= request.maxLiveKeys) return { kind: 'full', retryAfterMs: Math.min(...live.map((r) => r.expiresAt)) - now };
    }
    if (row) {
      const windowEnded = row.expiresAt <= now;
      if (!windowEnded && row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (!windowEnded && row.status !== null && row.answer !== null) return { kind: 'answered', status: row.status, answer: row.answer };
      if (!windowEnded && row.leaseUntil > now) return { kind: 'running' };
    }
    // Free, past its window, or its holder's lease ran out: this request takes it.
    this.keys.set(id, fresh);
    return { kind: 'claimed' };
  }

  async complete(id: string, token: string, status: number, answer: string): Promise<boolean> {
    const row = this.keys.get(id);
    if (row?.leaseToken !== token || row.status !== null) return false;
    Object.assign(row, { status, answer });
    return true;
  }

  async release(id: string, token: string): Promise<void> {
    const row = this.keys.get(id);
    if (row?.leaseToken === token && row.status === null) this.keys.delete(id);
  }

  async purge(now: number, limits: PurgeLimits): Promise<number> {
    const ended = [...this.keys.entries()].filter(([, r]) => r.expiresAt <= now).sort(([, x], [, y]) => x.expiresAt - y.expiresAt);
    const taken = firstBatches(ended, limits);
    for (const [id] of taken) this.keys.delete(id);
    return taken.length;
  }
}

// --- test numbers ---

export class MemoryTestNumberStore implements TestNumberStore {
  private readonly numbers = new Map<string, TestNumberRecord>();

  async add(record: TestNumberRecord): Promise<'added' | 'duplicate'> {
    if ([...this.numbers.values()].some((t) => t.accountId === record.accountId && t.destination === record.destination)) return 'duplicate';
    if (this.numbers.has(record.id)) throw new Error(`duplicate test number id ${record.id}`);
    this.numbers.set(record.id, copy(record));
    return 'added';
  }

  async list(accountId: string): Promise<TestNumberRecord[]> {
    return [...this.numbers.values()].filter((t) => t.accountId === accountId).sort((x, y) => x.createdAt - y.createdAt || compare(x.id, y.id)).map(copy);
  }

  async count(accountId: string): Promise<number> {
    return (await this.list(accountId)).length;
  }

  async find(accountId: string, destination: string): Promise<TestNumberRecord | undefined> {
    const found = [...this.numbers.values()].find((t) => t.accountId === accountId && t.destination === destination);
    return found && copy(found);
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    if (this.numbers.get(id)?.accountId !== accountId) return false;
    return this.numbers.delete(id);
  }
}

// --- workflow steps ---

interface StepRow extends WorkflowStepRecord {
  pinId: string;
  accountId: string;
  claim: string | null;
  leaseUntil: number | null;
}

export class MemoryWorkflowStore implements WorkflowStore {
  private readonly steps = new Map<string, StepRow>();

  /**
   * `setApplicationWorkflow`: writes an application's workflow, false when the account has no such
   * application; `pinExists`: whether a PIN is still stored (steps of deleted PINs are purged);
   * `firstRequestOf`: the request of a PIN's first message, undefined when none was queued.
   */
  constructor(
    private readonly setApplicationWorkflow: (accountId: string, applicationId: string, steps: readonly WorkflowStep[] | null, now: number) => boolean,
    private readonly pinExists: (pinId: string) => boolean,
    private readonly firstRequestOf: (pinId: string) => DeliveryRequest | undefined,
  ) {}

  async setWorkflow(accountId: string, applicationId: string, steps: readonly WorkflowStep[] | null, now: number): Promise<boolean> {
    return this.setApplicationWorkflow(accountId, applicationId, steps, now);
  }

  async schedule(accountId: string, pinId: string, steps: NewWorkflowStep[], now: number): Promise<void> {
    for (const s of steps) if (this.steps.has(key(pinId, String(s.step)))) throw new Error(`duplicate workflow step ${pinId}/${s.step}`);
    for (const s of steps) {
      this.steps.set(key(pinId, String(s.step)), { pinId, accountId, step: s.step, channel: s.channel, state: s.state, dueAt: s.dueAt, reason: s.reason, updatedAt: now, claim: null, leaseUntil: null });
    }
  }

  async discard(pinId: string): Promise<void> {
    for (const [k, s] of this.steps) if (s.pinId === pinId) this.steps.delete(k);
  }

  async claimDue(now: number, leaseUntil: number, max: number): Promise<WorkflowStepClaim[]> {
    const claim = randomUUID();
    const due = [...this.steps.values()]
      .filter((s) => ((s.state === 'scheduled' && s.dueAt !== null && s.dueAt <= now) || (s.state === 'running' && s.leaseUntil !== null && s.leaseUntil <= now))
        // A later step waits for the one before it.
        && !this.stepsOf(s.pinId).some((e) => e.step < s.step && (e.state === 'scheduled' || e.state === 'running')))
      .sort((x, y) => (x.dueAt ?? 0) - (y.dueAt ?? 0)).slice(0, max);
    return due.map((s) => {
      Object.assign(s, { state: 'running', claim, leaseUntil, updatedAt: now });
      return { pinId: s.pinId, step: s.step, accountId: s.accountId, channel: s.channel, dueAt: s.dueAt ?? 0, claim, firstRequest: this.firstRequestOf(s.pinId) ?? { placeholders: {} } };
    });
  }

  /**
   * Marks a claimed step sent (the resend that is it was queued); false when the claim was lost. A
   * step that runs late pushes the steps after it back as much.
   */
  markSent(claim: WorkflowStepClaim, now: number): boolean {
    if (!this.holds(claim)) return false;
    Object.assign(this.steps.get(key(claim.pinId, String(claim.step)))!, { state: 'sent', claim: null, leaseUntil: null, updatedAt: now });
    const late = now - claim.dueAt;
    if (late > 0) for (const s of this.stepsOf(claim.pinId)) if (s.state === 'scheduled' && s.dueAt !== null) s.dueAt += late;
    return true;
  }

  /** Whether `claim` still holds its step, which is still running. */
  holds(claim: WorkflowStepClaim): boolean {
    const s = this.steps.get(key(claim.pinId, String(claim.step)));
    return s?.claim === claim.claim && s.state === 'running';
  }

  async finish(claim: WorkflowStepClaim, state: 'skipped' | 'cancelled', reason: string, now: number, then: 'advance' | 'cancel'): Promise<void> {
    if (!this.holds(claim)) return;
    Object.assign(this.steps.get(key(claim.pinId, String(claim.step)))!, { state, reason, claim: null, leaseUntil: null, updatedAt: now });
    if (then === 'advance') this.pullNextStep(claim.pinId, now);
    else for (const s of this.stepsOf(claim.pinId)) if (s.state === 'scheduled') Object.assign(s, { state: 'cancelled', reason, updatedAt: now });
  }

  async deliveryFailed(pinId: string, channel: Channel | undefined, reason: string, now: number): Promise<boolean> {
    const latest = this.stepsOf(pinId).filter((s) => s.state === 'sent' || s.state === 'failed').sort((x, y) => y.step - x.step)[0];
    // A failure of an earlier step's message, reported after a later step went out, moves nothing.
    if (!latest || (channel !== undefined && latest.channel !== channel) || latest.state !== 'sent') return false;
    Object.assign(latest, { state: 'failed', reason, updatedAt: now });
    return this.pullNextStep(pinId, now);
  }

  async advance(pinId: string, now: number): Promise<boolean> {
    return this.pullNextStep(pinId, now);
  }

  async list(accountId: string, pinId: string): Promise<WorkflowStepRecord[]> {
    return this.stepsOf(pinId).filter((s) => s.accountId === accountId).sort((x, y) => x.step - y.step)
      .map((s) => ({ step: s.step, channel: s.channel, state: s.state, dueAt: s.dueAt, reason: s.reason, updatedAt: s.updatedAt }));
  }

  async purge(before: number): Promise<number> {
    const ended: WorkflowStepState[] = ['sent', 'failed', 'skipped', 'cancelled'];
    let deleted = 0;
    for (const [k, s] of this.steps) {
      if (s.updatedAt < before && (ended.includes(s.state) || !this.pinExists(s.pinId))) {
        this.steps.delete(k);
        deleted += 1;
      }
    }
    return deleted;
  }

  private stepsOf(pinId: string): StepRow[] {
    return [...this.steps.values()].filter((s) => s.pinId === pinId);
  }

  /** Makes the PIN's next step due `now` (if it is later), keeping the delays between the ones after it. */
  private pullNextStep(pinId: string, now: number): boolean {
    const scheduled = this.stepsOf(pinId).filter((s) => s.state === 'scheduled' && s.dueAt !== null);
    if (scheduled.length === 0) return false;
    const shift = Math.min(...scheduled.map((s) => s.dueAt!)) - now;
    if (shift > 0) for (const s of scheduled) s.dueAt! -= shift;
    return true;
  }
}

/** A map key of several parts. */
export function key(...parts: string[]): string {
  return parts.join('\u0000');
}

/** Compares as SQL's ORDER BY on text does in both databases for the ASCII ids used here. */
export function compare(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
