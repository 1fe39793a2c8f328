// The stores side by side: the same sequences of rate-limit takes, PIN sends, verifications, resends
// and delivery outcomes run on every store (memory, SQLite, PostgreSQL, and PostgreSQL with its limits
// counted in Redis), and every step's answer and the PIN it concerns must read the same on all of them.
// The rules a store keeps are written once per store (the live-PIN check, the sliding window, a failed
// resend keeping the earlier delivery); this is where those copies meet. A divergence names the step,
// the sequence up to it and what each store answered; fast-check's seed replays it.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_CONFIGURATION } from '../../src/domain/application-rules.js';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import { auditEntryText, type AuditAppend } from '../../src/store/audit-store.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import { openStore } from '../../src/store/open-store.js';
import { RedisRateLimiter } from '../../src/store/redis/redis-rate-limiter.js';
import type { OutboxRecord, PinRecord, RateLimitCheck, Store, VerifyAttempt } from '../../src/store/store.js';
import { createTestDatabase, deleteRedisKeys, skipUnlessPostgres, skipUnlessRedis, TEST_REDIS_URL, type TestDatabase } from '../support/postgres.js';

const T0 = 1_800_000_000_000;
const keyring = new PinKeyring('differential-secret-0123456789-0123456789');
const RIGHT = '123456';
const WRONG = '654321';
const ACCOUNT = 'ACCT-DIFFERENTIAL';
const APPLICATION = 'APP-DIFFERENTIAL';
const MESSAGE = 'MSG-DIFFERENTIAL';
const LEASE_MS = 30_000;
const noPostgres = await skipUnlessPostgres();
const noRedis = noPostgres || (await skipUnlessRedis());

type LimitChoice = number[];
type Operation =
  | { op: 'advance'; ms: number }
  | { op: 'take'; limits: LimitChoice }
  | { op: 'peek'; limit: number }
  | { op: 'send'; ttlMs: number; attempts: number; multiple: boolean; outbox: boolean; limits: LimitChoice }
  | { op: 'verify'; pin: number; right: boolean; withHash: boolean; limits: LimitChoice }
  | { op: 'resend'; pin: number; outbox: boolean; limits: LimitChoice }
  | { op: 'claim' }
  | { op: 'deliver'; message: number; providerId: boolean }
  | { op: 'retry'; message: number; delayMs: number }
  | { op: 'fail'; message: number; state: 'failed' | 'cancelled' }
  | { op: 'release'; message: number }
  | { op: 'renew'; message: number }
  | { op: 'restart' }
  | { op: 'receipt'; message: number; delivered: boolean; requeue: boolean; providerAheadMs: number };

interface Scenario {
  limits: Array<{ limit: number; windowMs: number }>;
  operations: Operation[];
}

const limitChoice = fc.subarray([0, 1, 2]);
const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 120_000 }), fc.constantFrom(1, 1_000, 10_000, 60_000)) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('take' as const), limits: limitChoice }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('peek' as const), limit: fc.nat(2) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('send' as const), ttlMs: fc.constantFrom(5_000, 60_000, 600_000), attempts: fc.integer({ min: 1, max: 3 }), multiple: fc.boolean(), outbox: fc.boolean(), limits: limitChoice }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('verify' as const), pin: fc.nat(5), right: fc.boolean(), withHash: fc.boolean(), limits: limitChoice }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('resend' as const), pin: fc.nat(5), outbox: fc.boolean(), limits: limitChoice }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('claim' as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('deliver' as const), message: fc.nat(5), providerId: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('retry' as const), message: fc.nat(5), delayMs: fc.constantFrom(0, 1_000, 45_000) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('fail' as const), message: fc.nat(5), state: fc.constantFrom('failed' as const, 'cancelled' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('release' as const), message: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('renew' as const), message: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('restart' as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('receipt' as const), message: fc.nat(5), delivered: fc.boolean(), requeue: fc.boolean(), providerAheadMs: fc.constantFrom(0, 2_000) }) },
);
const scenario: fc.Arbitrary<Scenario> = fc.record({
  limits: fc.array(fc.record({ limit: fc.integer({ min: 1, max: 4 }), windowMs: fc.constantFrom(1_000, 10_000, 60_000, 3_600_000) }), { minLength: 3, maxLength: 3 }),
  operations: fc.array(operation, { minLength: 20, maxLength: 60 }),
});

/** What a caller can observe of a PIN (its hash and ciphertext aside: whether the ciphertext is still there). */
function pinView(pin: PinRecord | undefined) {
  if (!pin) return undefined;
  return {
    attemptsLeft: pin.attemptsLeft, verifiedAt: pin.verifiedAt, lockedAt: pin.lockedAt, expiresAt: pin.expiresAt, deliverable: pin.pinCiphertext !== null,
    deliveryStatus: pin.deliveryStatus, deliveryError: pin.deliveryError, sentAt: pin.sentAt, sendCount: pin.sendCount,
    deliveryTransport: pin.deliveryTransport, providerMessageId: pin.providerMessageId, deliveredAt: pin.deliveredAt,
  };
}

function attemptView(attempt: VerifyAttempt) {
  switch (attempt.kind) {
    case 'refused': return { kind: attempt.kind, outcome: attempt.outcome };
    case 'ended': return { kind: attempt.kind, pin: pinView(attempt.pin) };
    case 'counted': return { kind: attempt.kind, matched: attempt.matched, verified: attempt.verified, pin: pinView(attempt.pin) };
  }
}

/**
 * A claimed message as the worker sees it. The ids of messages a store makes itself (a receipt's
 * requeue) are random: they read as the PIN's requeued message instead.
 */
function messageView(message: OutboxRecord, run: string) {
  const id = message.id.startsWith(run) ? message.id : `requeue of ${message.pinId} at ${message.createdAt}`;
  return { id, pinId: message.pinId, channel: message.channel, request: message.request, attempts: message.attempts, createdAt: message.createdAt };
}

/** This run's messages of a claim, in an order that does not depend on the stores' own ids or order. */
function claimedOf(messages: OutboxRecord[], run: string): OutboxRecord[] {
  const label = (m: OutboxRecord) => messageView(m, run).id;
  return messages.filter((m) => m.pinId.startsWith(run)).sort((x, y) => x.pinId.localeCompare(y.pinId) || x.createdAt - y.createdAt || label(x).localeCompare(label(y)));
}

/** One step as a store answered it: the call's answer, and the PIN it concerns with its delivery history. */
interface Observation {
  answer: unknown;
  pin?: unknown;
  history?: unknown;
}

/**
 * Runs the scenario on one store. Ids, keys and times are the same on every store (`run` keeps one
 * execution's rows apart from another's in the same database); what each store answers decides the
 * next steps on that store only, so a divergence shows at the first step it appears in.
 */
async function play(store: Store, run: string, scenario: Scenario): Promise<Observation[]> {
  const limits: RateLimitCheck[] = scenario.limits.map((l, i) => ({ key: `${run}:limit${i}`, ...l }));
  const chosen = (choice: LimitChoice) => choice.map((i) => limits[i]!);
  let now = T0;
  let sends = 0;
  const pinIds: string[] = [];
  /** Messages claimed and not yet given an outcome, in claim order. */
  let held: OutboxRecord[] = [];
  /** Provider ids of the messages delivered, for receipts (a receipt may name one again: providers repeat them). */
  const delivered: string[] = [];
  const observations: Observation[] = [];
  const concerning = async (pinId: string | undefined, answer: unknown): Promise<Observation> => {
    if (pinId === undefined) return { answer };
    return { answer, pin: pinView(await store.getPin(ACCOUNT, pinId)), history: await store.listDeliveryEvents(ACCOUNT, pinId) };
  };
  const heldMessage = (index: number): OutboxRecord | undefined => {
    if (held.length === 0) return undefined;
    const message = held[index % held.length]!;
    held = held.filter((m) => m !== message);
    return message;
  };
  const sentPin = (index: number): string | undefined => pinIds.length === 0 ? undefined : pinIds[index % pinIds.length];

  for (const step of scenario.operations) {
    switch (step.op) {
      case 'advance':
        now += step.ms;
        observations.push({ answer: now });
        break;
      case 'take':
        observations.push({ answer: await store.consumeRateLimits(chosen(step.limits), now) });
        break;
      case 'peek':
        observations.push({ answer: await store.peekRateLimit(limits[step.limit]!, now) });
        break;
      case 'send': {
        const id = `${run}${(sends++).toString(16).padStart(4, '0')}`;
        const outcome = await store.createPin({
          pin: {
            id, accountId: ACCOUNT, applicationId: APPLICATION, messageId: MESSAGE, channel: 'sms', destination: '41793026727',
            pinHash: keyring.hashPin(id, RIGHT), pinCiphertext: keyring.encryptPin(id, RIGHT), attemptsLeft: step.attempts,
            allowMultipleVerifications: step.multiple, createdAt: now, expiresAt: now + step.ttlMs, deliveryStatus: step.outbox ? 'queued' : 'sent',
          },
          ...(step.outbox ? { outbox: { id: `${id}-M0`, request: { placeholders: { step: String(observations.length) } } } } : {}),
        }, chosen(step.limits), now);
        if (outcome.allowed) pinIds.push(id);
        observations.push(await concerning(id, outcome));
        break;
      }
      case 'verify': {
        const id = sentPin(step.pin);
        if (id === undefined) break;
        const candidate = step.right ? RIGHT : WRONG;
        const auditOf = (attempt: VerifyAttempt): AuditAppend => ({
          entry: { accountId: ACCOUNT, at: now, event: 'pin.verify', pinId: id, reason: attempt.kind },
          seal: (unsealed) => keyring.sealAudit(auditEntryText(unsealed)),
        });
        const pin = { id, accountId: ACCOUNT, ...(step.withHash ? { pinHash: keyring.hashPin(id, RIGHT) } : {}) };
        const attempt = await store.verifyPinAttempt(pin, now, chosen(step.limits), (hash) => hash === keyring.hashPin(id, candidate), auditOf);
        if (!attempt.audited) await store.audit.append(auditOf(attempt).entry, auditOf(attempt).seal);
        observations.push(await concerning(id, attemptView(attempt)));
        break;
      }
      case 'resend': {
        const id = sentPin(step.pin);
        if (id === undefined) break;
        const outbox = step.outbox ? { id: `${id}-M${observations.length}`, request: { placeholders: { step: String(observations.length) } } } : undefined;
        observations.push(await concerning(id, await store.queueResend(id, 'sms', outbox, chosen(step.limits), now)));
        break;
      }
      case 'claim': {
        const claimed = claimedOf(await store.claimOutbox(now, now + LEASE_MS, 1000, 'node-a'), run);
        // A message claimed again (its lease ended) is held under its newest claim.
        held = [...held.filter((m) => !claimed.some((c) => c.id === m.id)), ...claimed];
        observations.push({ answer: claimed.map((m) => messageView(m, run)) });
        break;
      }
      case 'deliver': {
        const message = heldMessage(step.message);
        if (!message) break;
        const providerMessageId = step.providerId ? `${run}-smsc-${observations.length}` : undefined;
        const answer = await store.completeOutbox(message.id, message.pinId, now, { transport: 'smpp', ...(providerMessageId ? { providerMessageId } : {}) });
        if (providerMessageId) delivered.push(providerMessageId);
        observations.push(await concerning(message.pinId, { ...answer, audited: undefined }));
        break;
      }
      case 'retry': {
        const message = heldMessage(step.message);
        if (!message) break;
        observations.push(await concerning(message.pinId, await store.retryOutbox(message.id, message.pinId, now + step.delayMs, 'timeout', now)));
        break;
      }
      case 'fail': {
        const message = heldMessage(step.message);
        if (!message) break;
        const answer = await store.failOutbox(message.id, message.pinId, 'rejected', now, step.state);
        observations.push(await concerning(message.pinId, { ...answer, audited: undefined }));
        break;
      }
      case 'release': {
        const message = heldMessage(step.message);
        if (!message) break;
        observations.push(await concerning(message.pinId, await store.releaseOutbox([message], now)));
        break;
      }
      case 'renew': {
        if (held.length === 0) break;
        const message = held[step.message % held.length]!;
        observations.push(await concerning(message.pinId, await store.renewOutbox([message], 'node-a', now + LEASE_MS)));
        break;
      }
      case 'restart':
        // The node forgets what it held and takes back the leases it still has.
        held = [];
        observations.push({ answer: await store.releaseHeldOutbox('node-a', now) });
        break;
      case 'receipt': {
        if (delivered.length === 0) break;
        const providerMessageId = delivered[step.message % delivered.length]!;
        const named = await store.findReceiptMessage({ transport: 'smpp', providerMessageId });
        const recorded = await store.recordReceipt(
          { transport: 'smpp', providerMessageId, status: step.delivered ? 'delivered' : 'undelivered', ...(step.delivered ? {} : { error: 'absent subscriber' }), at: now + step.providerAheadMs },
          { now, ...(step.requeue ? { requeue: { placeholders: { step: String(observations.length) }, skipTransports: ['smpp'] } } : {}) });
        observations.push(await concerning(recorded?.pinId, { named, recorded }));
        break;
      }
    }
  }
  // What is left to deliver once every lease has ended.
  const left = claimedOf(await store.claimOutbox(now + LEASE_MS + 3_600_000, now + 2 * LEASE_MS + 3_600_000, 1000, 'node-b'), run);
  observations.push({ answer: left.map((m) => messageView(m, run)) });
  return observations;
}

/** The same scenario on every store; the first step whose observation differs fails, with what each store saw. */
async function compareStores(stores: Array<{ name: string; store: Store }>, scenario: Scenario): Promise<void> {
  const run = randomBytes(6).toString('hex').toUpperCase();
  const results = [];
  for (const { name, store } of stores) results.push({ name, observations: await play(store, run, scenario) });
  const [reference, ...others] = results;
  for (const other of others) {
    const steps = Math.max(reference!.observations.length, other.observations.length);
    for (let i = 0; i < steps; i++) {
      const expected = reference!.observations[i];
      const actual = other.observations[i];
      try {
        assert.deepEqual(actual, expected);
      } catch {
        const replay = JSON.stringify({ limits: scenario.limits, operations: scenario.operations.slice(0, i + 1) });
        assert.fail(`${other.name} diverges from ${reference!.name} at observation ${i}\n  scenario up to it: ${replay}\n  ${reference!.name}: ${JSON.stringify(expected)}\n  ${other.name}: ${JSON.stringify(actual)}`);
      }
    }
  }
}

/** Sequences written out: each names a rule the random ones might reach only rarely. */
const NAMED_SCENARIOS: Record<string, Scenario> = {
  'a failed resend keeps the earlier delivery': {
    limits: [{ limit: 3, windowMs: 60_000 }, { limit: 1, windowMs: 1_000 }, { limit: 2, windowMs: 3_600_000 }],
    operations: [
      { op: 'send', ttlMs: 600_000, attempts: 3, multiple: false, outbox: true, limits: [0] },
      { op: 'claim' }, { op: 'deliver', message: 0, providerId: true },
      { op: 'advance', ms: 2_000 }, { op: 'resend', pin: 0, outbox: true, limits: [0] },
      { op: 'claim' }, { op: 'fail', message: 0, state: 'failed' },
      { op: 'resend', pin: 0, outbox: true, limits: [0] }, { op: 'claim' }, { op: 'retry', message: 0, delayMs: 1_000 },
      { op: 'advance', ms: 1_000 }, { op: 'claim' }, { op: 'fail', message: 0, state: 'cancelled' },
    ],
  },
  'a first message that fails marks its PIN failed; a resend then delivered marks it sent': {
    limits: [{ limit: 3, windowMs: 60_000 }, { limit: 1, windowMs: 1_000 }, { limit: 2, windowMs: 3_600_000 }],
    operations: [
      { op: 'send', ttlMs: 600_000, attempts: 3, multiple: false, outbox: true, limits: [] },
      { op: 'claim' }, { op: 'retry', message: 0, delayMs: 0 }, { op: 'claim' }, { op: 'fail', message: 0, state: 'failed' },
      { op: 'resend', pin: 0, outbox: true, limits: [] }, { op: 'claim' }, { op: 'deliver', message: 0, providerId: false },
    ],
  },
  'right, wrong, expired, locked and already verified PINs, with and without multiple verifications': {
    limits: [{ limit: 2, windowMs: 10_000 }, { limit: 4, windowMs: 60_000 }, { limit: 1, windowMs: 1_000 }],
    operations: [
      { op: 'send', ttlMs: 60_000, attempts: 2, multiple: false, outbox: false, limits: [] },
      { op: 'send', ttlMs: 60_000, attempts: 3, multiple: true, outbox: false, limits: [] },
      { op: 'send', ttlMs: 5_000, attempts: 3, multiple: false, outbox: true, limits: [] },
      { op: 'verify', pin: 0, right: false, withHash: true, limits: [0] }, { op: 'verify', pin: 0, right: true, withHash: false, limits: [0] },
      { op: 'verify', pin: 0, right: true, withHash: true, limits: [0] },
      { op: 'verify', pin: 1, right: true, withHash: true, limits: [1] }, { op: 'verify', pin: 1, right: true, withHash: false, limits: [1] },
      { op: 'verify', pin: 1, right: false, withHash: true, limits: [1] }, { op: 'verify', pin: 1, right: true, withHash: true, limits: [1] },
      { op: 'advance', ms: 5_000 }, { op: 'verify', pin: 2, right: true, withHash: true, limits: [] }, { op: 'resend', pin: 2, outbox: true, limits: [] },
      { op: 'claim' }, { op: 'deliver', message: 0, providerId: true },
      { op: 'send', ttlMs: 60_000, attempts: 1, multiple: false, outbox: true, limits: [2] }, { op: 'send', ttlMs: 60_000, attempts: 1, multiple: false, outbox: true, limits: [2] },
      { op: 'verify', pin: 3, right: false, withHash: false, limits: [] }, { op: 'verify', pin: 3, right: true, withHash: true, limits: [] },
      { op: 'resend', pin: 3, outbox: true, limits: [] }, { op: 'claim' }, { op: 'deliver', message: 0, providerId: false },
    ],
  },
  'sliding windows: takes, peeks and sends across several windows and limits': {
    limits: [{ limit: 2, windowMs: 10_000 }, { limit: 3, windowMs: 60_000 }, { limit: 1, windowMs: 1_000 }],
    operations: [
      { op: 'take', limits: [0, 1] }, { op: 'advance', ms: 4_000 }, { op: 'take', limits: [0, 1, 2] }, { op: 'take', limits: [0] }, { op: 'peek', limit: 0 },
      { op: 'advance', ms: 6_001 }, { op: 'peek', limit: 0 }, { op: 'take', limits: [1, 0] }, { op: 'take', limits: [1] }, { op: 'peek', limit: 1 },
      { op: 'send', ttlMs: 60_000, attempts: 3, multiple: false, outbox: true, limits: [2, 1] }, { op: 'advance', ms: 999 }, { op: 'take', limits: [2] },
      { op: 'advance', ms: 1 }, { op: 'take', limits: [2] }, { op: 'advance', ms: 60_000 }, { op: 'send', ttlMs: 60_000, attempts: 3, multiple: false, outbox: true, limits: [0, 1, 2] },
      // A hit leaves its window exactly `windowMs` after it.
      { op: 'take', limits: [0] }, { op: 'take', limits: [0] }, { op: 'advance', ms: 9_999 }, { op: 'peek', limit: 0 }, { op: 'take', limits: [0] },
      { op: 'advance', ms: 1 }, { op: 'peek', limit: 0 }, { op: 'take', limits: [0] }, { op: 'take', limits: [0] },
    ],
  },
};

describe('every store answers the same sequences the same way', () => {
  const stores: Array<{ name: string; store: Store }> = [];
  const databases: TestDatabase[] = [];
  let limiter: RedisRateLimiter | undefined;
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-differential-'));
    stores.push({ name: 'memory', store: new MemoryStore() });
    stores.push({ name: 'SQLite', store: await openStore(`sqlite:${path.join(dir, 'twofa.db')}`) });
    if (!noPostgres) {
      const database = await createTestDatabase('differential');
      databases.push(database);
      stores.push({ name: 'PostgreSQL', store: await openStore(database.url) });
    }
    if (!noRedis) {
      const database = await createTestDatabase('differential_redis');
      databases.push(database);
      limiter = await RedisRateLimiter.open(TEST_REDIS_URL, { keyPrefix: `twofa-test:${randomUUID()}:` });
      stores.push({ name: 'PostgreSQL + Redis limits', store: await openStore(database.url, { rateLimiter: limiter }) });
    }
    for (const { store } of stores) {
      await store.findOrCreateAccount(ACCOUNT, ACCOUNT, T0);
      await store.insertApplication({ id: APPLICATION, accountId: ACCOUNT, name: 'app', enabled: true, configuration: { ...DEFAULT_CONFIGURATION }, createdAt: T0, updatedAt: T0 });
      await store.insertMessageTemplate({
        kind: 'sms_voice', id: MESSAGE, accountId: ACCOUNT, applicationId: APPLICATION, pinType: 'NUMERIC', pinLength: 6, messageText: 'code {{pin}}',
        senderId: null, language: 'en', voiceName: null, repeatDtmf: null, speechRate: null, regional: null, createdAt: T0, updatedAt: T0,
      });
    }
  });

  after(async () => {
    for (const { store } of stores) await store.close();
    await limiter?.close();
    if (limiter) await deleteRedisKeys(limiter.keyPrefix);
    for (const database of databases) await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs on every store this machine has', { skip: noRedis ? 'needs PostgreSQL and Redis' : false }, () => {
    assert.deepEqual(stores.map((s) => s.name), ['memory', 'SQLite', 'PostgreSQL', 'PostgreSQL + Redis limits']);
  });

  for (const [title, named] of Object.entries(NAMED_SCENARIOS)) {
    it(title, async () => { await compareStores(stores, named); });
  }

  it('random sequences of limits, sends, verifications, resends and delivery outcomes (fixed seed)', async () => {
    await fc.assert(fc.asyncProperty(scenario, (generated) => compareStores(stores, generated)), { seed: 23_012, numRuns: 40 });
  });
});
