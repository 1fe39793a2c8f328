// The worker end to end on the real SQLite store: rows are written through the Store contract, as the
// send use case writes them, and delivery goes through real transports (the log:// inbox) or scripted
// ones where a provider's failures are the point.
import { DEFAULT_CONFIGURATION } from '../../src/domain/application-rules.js';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino, { type Logger } from 'pino';
import { Inbox, type InboxMessage } from '../../src/delivery/log/inbox.js';
import { LogTransport } from '../../src/delivery/log/log-transport.js';
import { composeMessage } from '../../src/delivery/message-composer.js';
import { OutboxWorker, type OutboxWorkerDeps } from '../../src/delivery/outbox-worker.js';
import type { DeliveryResult, OutgoingMessage, Transport } from '../../src/delivery/transport.js';
import { generatePinId, generateResourceId } from '../../src/domain/pin-generation.js';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import { noopMetrics, type DeliveryOutcomeLabel } from '../../src/observability/metrics.js';
import { deliveryAudit } from '../../src/service/audit-log.js';
import { openStore } from '../../src/store/open-store.js';
import type { Channel, DeliveryRequest, Store } from '../../src/store/store.js';

const MINUTE = 60_000;
const keyring = new PinKeyring('x'.repeat(32));

/** A transport that answers from a script and records what it was asked to send. */
class ScriptedTransport implements Transport {
  readonly name = 'scripted';
  readonly sent: OutgoingMessage[] = [];
  constructor(private readonly answers: (DeliveryResult | Error)[], private readonly otherwise: DeliveryResult = { ok: true }) {}
  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    this.sent.push(message);
    const answer = this.answers.shift() ?? this.otherwise;
    if (answer instanceof Error) throw answer;
    return answer;
  }
}

interface Fixture {
  store: Store;
  accountId: string;
  applicationId: string;
  smsMessageId: string;
  now: number;
  logLines: string[];
  logger: Logger;
  inbox: Inbox;
}

let f: Fixture;

beforeEach(async () => {
  const store = await openStore('sqlite::memory:');
  const now = 1_700_000_000_000;
  const account = await store.findOrCreateAccount('default', randomUUID(), now);
  const applicationId = generateResourceId();
  await store.insertApplication({
    id: applicationId,
    accountId: account.id,
    name: 'Shop',
    enabled: true,
    configuration: { ...DEFAULT_CONFIGURATION },
    createdAt: now,
    updatedAt: now,
  });
  const smsMessageId = generateResourceId();
  await store.insertMessageTemplate({
    id: smsMessageId,
    accountId: account.id,
    applicationId,
    kind: 'sms_voice',
    pinType: 'NUMERIC',
    pinLength: 6,
    messageText: 'Hi {{name}}, your {{shop}} code is {{pin}}',
    senderId: 'ShopSender',
    language: 'en',
    voiceName: null,
    repeatDtmf: null,
    speechRate: null,
    regional: null,
    createdAt: now,
    updatedAt: now,
  });
  const logLines: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => logLines.push(line) });
  f = { store, accountId: account.id, applicationId, smsMessageId, now, logLines, logger, inbox: new Inbox({ clock: () => f.now }) };
});

afterEach(async () => {
  await f.store.close();
});

async function sendPin(options: { pin?: string; channel?: Channel; destination?: string; messageId?: string; request?: DeliveryRequest; ttlMs?: number } = {}) {
  const pinId = generatePinId();
  const pin = options.pin ?? '482915';
  const outboxId = randomUUID();
  const outcome = await f.store.createPin(
    {
      pin: {
        id: pinId,
        accountId: f.accountId,
        applicationId: f.applicationId,
        messageId: options.messageId ?? f.smsMessageId,
        channel: options.channel ?? 'sms',
        destination: options.destination ?? '41793026727',
        pinHash: keyring.hashPin(pinId, pin),
        pinCiphertext: keyring.encryptPin(pinId, pin),
        attemptsLeft: 10,
        allowMultipleVerifications: true,
        createdAt: f.now,
        expiresAt: f.now + (options.ttlMs ?? 15 * MINUTE),
        deliveryStatus: 'queued',
      },
      outbox: { id: outboxId, request: options.request ?? { placeholders: { name: 'Ann', shop: 'ACME' } } },
    },
    [],
    f.now,
  );
  assert.deepEqual(outcome, { allowed: true });
  return { pinId, pin, outboxId };
}

type Outcomes = Record<DeliveryOutcomeLabel, number>;
const outcomesOf = new WeakMap<OutboxWorker, Outcomes>();

/** What the worker reported to twofa_deliveries_total, by outcome (all channels and transports). */
function outcomes(w: OutboxWorker): Outcomes {
  return { ...outcomesOf.get(w)! };
}

function worker(overrides: Partial<OutboxWorkerDeps> = {}): OutboxWorker {
  const counted: Outcomes = { delivered: 0, retried: 0, failed: 0, cancelled: 0 };
  const w = new OutboxWorker({
    metrics: { ...noopMetrics, delivery: (_channel, _transport, outcome) => { counted[outcome] += 1; } },
    store: f.store,
    keyring,
    audit: deliveryAudit({ store: f.store, keyring, metrics: noopMetrics }),
    transports: { sms: new LogTransport(f.inbox, f.logger), voice: new LogTransport(f.inbox, f.logger), email: new LogTransport(f.inbox, f.logger) },
    nodeId: 'node-a',
    clock: () => f.now,
    logger: f.logger,
    maxAttempts: 5,
    ...overrides,
  });
  outcomesOf.set(w, counted);
  return w;
}

/**
 * The worker's timers are unref'd (they must not keep a process alive on their own), so a test that
 * waits on them needs a ref'd timer of its own; it also turns a hang into a clear failure.
 */
function within<T>(promise: Promise<T>, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** What no log line may ever contain: the PIN and the full destination. */
function assertLogsClean(...secrets: string[]): void {
  assert.ok(f.logLines.length > 0);
  for (const line of f.logLines) {
    for (const secret of secrets) assert.ok(!line.includes(secret), `log line leaks ${secret}: ${line}`);
  }
}

describe('OutboxWorker with the SQLite store', () => {
  it('delivers a queued SMS into the log:// inbox and marks the PIN sent', async () => {
    const { pinId, pin } = await sendPin();
    const w = worker();
    await w.drain();

    const [received, ...rest] = f.inbox.list(f.accountId);
    assert.equal(rest.length, 0);
    assert.equal(received?.text, `Hi Ann, your ACME code is ${pin}`);
    assert.equal(received?.channel, 'sms');
    assert.equal(received?.to, '41793026727');
    assert.equal(received?.from, 'ShopSender');
    assert.equal(received?.pinId, pinId);
    assert.equal(received?.messageId, f.smsMessageId);
    assert.equal(received?.applicationId, f.applicationId);

    const stored = await f.store.getPin(f.accountId, pinId);
    assert.equal(stored?.deliveryStatus, 'sent');
    assert.equal(stored?.sentAt, f.now);
    assert.equal(stored?.deliveryError, null);
    assert.equal(await f.store.countPendingOutbox(), 0);
    assert.deepEqual(outcomes(w), { delivered: 1, retried: 0, failed: 0, cancelled: 0 });
    assertLogsClean(pin, '41793026727', 'Hi Ann');
  });

  it('uses the from of the request over the template sender', async () => {
    await sendPin({ request: { placeholders: { name: 'Ann', shop: 'ACME' }, from: 'Override' } });
    await worker().drain();
    assert.equal(f.inbox.list(f.accountId)[0]?.from, 'Override');
  });

  it('retries a retryable failure with backoff and ends sent', async () => {
    const { pinId, pin } = await sendPin();
    const transport = new ScriptedTransport([
      { ok: false, retryable: true, error: 'provider answered HTTP 503' },
      new Error('socket hang up'),
    ]);
    const w = worker({ transports: { sms: transport } });

    await w.drain();
    assert.equal(transport.sent.length >= 1, true);
    // Each retry waits at most base * 2^(attempt-1) (1 s, then 2 s): moving the clock 5 s on at a time
    // makes every scheduled retry due.
    for (let i = 0; i < 3 && transport.sent.length < 3; i += 1) {
      f.now += 5_000;
      await w.drain();
    }
    assert.equal(transport.sent.length, 3);
    assert.equal(transport.sent[2]?.text, `Hi Ann, your ACME code is ${pin}`);
    // One outbox row, one delivery id for every attempt.
    assert.equal(new Set(transport.sent.map((m) => m.deliveryId)).size, 1);

    const stored = await f.store.getPin(f.accountId, pinId);
    assert.equal(stored?.deliveryStatus, 'sent');
    assert.ok(stored?.sentAt !== null && stored?.sentAt !== undefined);
    assert.deepEqual(outcomes(w), { delivered: 1, retried: 2, failed: 0, cancelled: 0 });
    const retryLog = f.logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'delivery failed; will retry');
    assert.equal(retryLog.length, 2);
    assert.equal(retryLog[1]?.error, 'socket hang up');
    assert.ok(Number(retryLog[0]?.retryInMs) <= 1000 && Number(retryLog[1]?.retryInMs) <= 2000);
    assertLogsClean(pin, '41793026727');
    // Retries are not audited; the delivery is, once (in the outcome's transaction on SQLite), its destination masked.
    const audit = await f.store.audit.list(f.accountId, { pinId }, 10);
    assert.deepEqual(audit.map((e) => [e.event, e.reason, e.destination, e.actor]), [['delivery.sent', transport.name, '4179*****27', 'delivery']]);
  });

  it('does not retry before the backoff has passed', async () => {
    await sendPin();
    const transport = new ScriptedTransport([{ ok: false, retryable: true, error: 'busy' }]);
    // A large base makes an immediate retry (a zero jitter draw) practically impossible.
    const w = worker({ transports: { sms: transport }, backoffBaseMs: 60_000 });
    await w.drain();
    await w.drain();
    assert.ok(transport.sent.length === 1 || transport.sent.length === 2);
    const before = transport.sent.length;
    f.now += 60_000;
    await w.drain();
    assert.equal(transport.sent.length, before + 1);
  });

  it('records a permanent failure as failed with the error', async () => {
    const { pinId } = await sendPin();
    const transport = new ScriptedTransport([{ ok: false, retryable: false, error: 'webhook answered HTTP 400' }]);
    const w = worker({ transports: { sms: transport } });
    await w.drain();
    f.now += 10 * MINUTE;
    await w.drain();

    assert.equal(transport.sent.length, 1);
    const stored = await f.store.getPin(f.accountId, pinId);
    assert.equal(stored?.deliveryStatus, 'failed');
    assert.equal(stored?.deliveryError, 'webhook answered HTTP 400');
    assert.equal(stored?.sentAt, null);
    assert.deepEqual(outcomes(w), { delivered: 0, retried: 0, failed: 1, cancelled: 0 });
  });

  it('gives up after maxAttempts retryable failures', async () => {
    const { pinId } = await sendPin();
    const transport = new ScriptedTransport([], { ok: false, retryable: true, error: 'provider answered HTTP 500' });
    const w = worker({ transports: { sms: transport }, maxAttempts: 3 });
    for (let i = 0; i < 6; i += 1) {
      await w.drain();
      f.now += 10_000;
    }
    assert.equal(transport.sent.length, 3);
    const stored = await f.store.getPin(f.accountId, pinId);
    assert.equal(stored?.deliveryStatus, 'failed');
    assert.equal(stored?.deliveryError, 'provider answered HTTP 500');
    assert.deepEqual(outcomes(w), { delivered: 0, retried: 2, failed: 1, cancelled: 0 });
  });

  it('never schedules a retry past the PIN expiry', async () => {
    const { pinId } = await sendPin({ ttlMs: 30_000 });
    // The provider takes so long to fail that the PIN has expired by the time it answers.
    const transport: Transport = {
      name: 'slow',
      async send() {
        f.now += MINUTE;
        return { ok: false, retryable: true, error: 'busy' };
      },
    };
    const w = worker({ transports: { sms: transport } });
    await w.drain();
    const stored = await f.store.getPin(f.accountId, pinId);
    assert.equal(stored?.deliveryStatus, 'failed');
    assert.equal(stored?.deliveryError, 'busy (not retried: the PIN expires first)');
  });

  it('cancels a PIN verified before its delivery (its ciphertext erased) and sends nothing', async () => {
    const { pinId } = await sendPin();
    const attempt = await f.store.verifyPinAttempt({ id: pinId, accountId: f.accountId }, f.now, [], () => true,
      () => ({ entry: { accountId: f.accountId, at: f.now, event: 'pin.verify', pinId }, seal: () => 'test-seal' }));
    assert.ok(attempt.kind === 'counted' && attempt.verified);
    assert.equal((await f.store.getPin(f.accountId, pinId))?.pinCiphertext, null);
    const transport = new ScriptedTransport([]);
    const w = worker({ transports: { sms: transport } });
    await w.drain();

    assert.equal(transport.sent.length, 0);
    assert.equal(await f.store.countPendingOutbox(), 0);
    const stored = await f.store.getPin(f.accountId, pinId);
    // Cancelled is not a delivery failure: the PIN simply ended first.
    assert.equal(stored?.deliveryStatus, 'queued');
    assert.equal(stored?.sentAt, null);
    assert.deepEqual(outcomes(w), { delivered: 0, retried: 0, failed: 0, cancelled: 1 });
  });

  it('cancels a PIN that expired before delivery', async () => {
    await sendPin({ ttlMs: MINUTE });
    f.now += 2 * MINUTE;
    const w = worker();
    await w.drain();
    assert.equal(f.inbox.list(f.accountId).length, 0);
    assert.equal(outcomes(w).cancelled, 1);
  });

  it('fails a message whose channel has no transport', async () => {
    const { pinId } = await sendPin();
    const w = worker({ transports: { email: new LogTransport(f.inbox, f.logger) } });
    await w.drain();
    const stored = await f.store.getPin(f.accountId, pinId);
    assert.equal(stored?.deliveryStatus, 'failed');
    assert.equal(stored?.deliveryError, 'no transport configured for sms');
  });

  it('fails a message whose placeholder value is missing', async () => {
    const { pinId } = await sendPin({ request: { placeholders: { name: 'Ann' } } });
    await worker().drain();
    const stored = await f.store.getPin(f.accountId, pinId);
    assert.equal(stored?.deliveryStatus, 'failed');
    assert.equal(stored?.deliveryError, 'message cannot be rendered: no value for placeholder {{shop}}');
    assert.equal(f.inbox.list(f.accountId).length, 0);
  });

  it('fails a PIN made under a secret that is no longer configured', async () => {
    const { pinId } = await sendPin();
    await worker({ keyring: new PinKeyring('y'.repeat(32)) }).drain();
    const stored = await f.store.getPin(f.accountId, pinId);
    assert.equal(stored?.deliveryStatus, 'failed');
    assert.equal(stored?.deliveryError, 'PIN cannot be decrypted: its secret is no longer configured');
  });

  it('delivers a resend on the channel of the outbox item (an SMS PIN resent by voice)', async () => {
    const { pinId, pin } = await sendPin();
    const w = worker();
    await w.drain();
    const resend = await f.store.queueResend(pinId, 'voice', { id: randomUUID(), request: { placeholders: { name: 'Ann', shop: 'ACME' } } }, [], f.now);
    assert.deepEqual(resend, { allowed: true });
    await w.drain();
    const [voice, sms] = f.inbox.list(f.accountId);
    assert.equal(voice?.channel, 'voice');
    assert.equal(voice?.text, `Hi Ann, your ACME code is ${pin}`);
    assert.equal(sms?.channel, 'sms');
  });

  it('renders an email from its email template, escaping placeholder values in the HTML', async () => {
    const emailTemplate = await f.store.insertEmailTemplate(
      f.accountId,
      {
        name: 'Login code',
        from: 'Template Sender <noreply@example.com>',
        subject: 'Your code for {{name}}',
        text: 'Hello {{name}}, your code is {{pin}}.',
        html: '<p>Hello {{name}}, your code is <b>{{pin}}</b>.</p>',
      },
      f.now,
    );
    const emailMessageId = generateResourceId();
    await f.store.insertMessageTemplate({
      id: emailMessageId,
      accountId: f.accountId,
      applicationId: f.applicationId,
      kind: 'email',
      pinType: 'NUMERIC',
      pinLength: 6,
      emailTemplateId: emailTemplate.id,
      from: null,
      landingPageId: null,
      createdAt: f.now,
      updatedAt: f.now,
    });
    const { pinId, pin } = await sendPin({
      channel: 'email',
      destination: 'jane.doe@example.com',
      messageId: emailMessageId,
      request: { placeholders: { name: 'Tom & <Jerry> "T"' } },
    });
    const w = worker();
    await w.drain();

    const [mail] = f.inbox.list(f.accountId, { to: 'jane.doe@example.com' });
    assert.equal(mail?.channel, 'email');
    assert.equal(mail?.from, 'Template Sender <noreply@example.com>');
    assert.equal(mail?.subject, 'Your code for Tom & <Jerry> "T"');
    assert.equal(mail?.text, `Hello Tom & <Jerry> "T", your code is ${pin}.`);
    assert.equal(mail?.html, `<p>Hello Tom &amp; &lt;Jerry&gt; &quot;T&quot;, your code is <b>${pin}</b>.</p>`);
    assert.equal((await f.store.getPin(f.accountId, pinId))?.deliveryStatus, 'sent');
    assertLogsClean(pin, 'jane.doe@example.com');
  });

  it('fails an email whose email template was deleted', async () => {
    const emailTemplate = await f.store.insertEmailTemplate(f.accountId, { name: 'x', from: null, subject: 'S {{pin}}', text: null, html: null }, f.now);
    const emailMessageId = generateResourceId();
    await f.store.insertMessageTemplate({
      id: emailMessageId, accountId: f.accountId, applicationId: f.applicationId, kind: 'email', pinType: 'NUMERIC', pinLength: 6,
      emailTemplateId: emailTemplate.id, from: 'msg@example.com', landingPageId: null, createdAt: f.now, updatedAt: f.now,
    });
    const { pinId } = await sendPin({ channel: 'email', destination: 'a@example.com', messageId: emailMessageId, request: { placeholders: {} } });
    const item = { id: 'o', pinId, accountId: f.accountId, channel: 'email' as const, request: { placeholders: {} }, attempts: 1, createdAt: f.now };
    const composed = await composeMessage(f.store, keyring, item);
    assert.ok(composed.ok && composed.message.from === 'msg@example.com' && composed.message.subject?.startsWith('S '));

    assert.equal(await f.store.deleteEmailTemplate(f.accountId, emailTemplate.id), true);
    await worker().drain();
    const stored = await f.store.getPin(f.accountId, pinId);
    assert.equal(stored?.deliveryStatus, 'failed');
    assert.match(stored?.deliveryError ?? '', /^email template \d+ used by message template [0-9A-F]{32} no longer exists$/);
  });

  it('delivers many messages with bounded concurrency', async () => {
    for (let i = 0; i < 40; i += 1) await sendPin({ destination: `4179302${String(6700 + i)}` });
    let inFlight = 0;
    let peak = 0;
    const transport: Transport = {
      name: 'slow',
      async send() {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight -= 1;
        return { ok: true };
      },
    };
    const w = worker({ transports: { sms: transport }, batchSize: 16, concurrency: 4 });
    await w.drain();
    assert.equal(outcomes(w).delivered, 40);
    assert.equal(peak, 4);
    assert.equal(await f.store.countPendingOutbox(), 0);
  });

  it('start() and wake() deliver without drain(), and stop() ends the loop', async () => {
    const w = worker({ pollIntervalMs: 60_000 });
    w.start();
    const arrived = new Promise<InboxMessage>((resolve) => {
      const unsubscribe = f.inbox.subscribe((m) => {
        unsubscribe();
        resolve(m);
      });
    });
    // Let the first (empty) poll run, so only wake() can deliver within the test's time.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { pinId } = await sendPin();
    w.wake();
    const message = await within(arrived);
    assert.equal(message.pinId, pinId);
    await w.stop();
    await sendPin();
    w.wake();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(f.inbox.list(f.accountId).length, 1, 'a stopped worker delivers nothing');
  });

  it('stop() waits for a delivery in flight', async () => {
    for (let i = 0; i < 3; i += 1) await sendPin();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = 0;
    let startedFirst: () => void = () => undefined;
    const firstStarted = new Promise<void>((resolve) => {
      startedFirst = resolve;
    });
    const transport: Transport = {
      name: 'gated',
      async send() {
        started += 1;
        startedFirst();
        await gate;
        return { ok: true };
      },
    };
    const w = worker({ transports: { sms: transport }, concurrency: 1 });
    w.start();
    await within(firstStarted);
    const stopping = w.stop(5_000);
    let stopped = false;
    void stopping.then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(stopped, false, 'stop() is still waiting for the delivery');
    release();
    await within(stopping);

    assert.equal(started, 1);
    assert.equal(outcomes(w).delivered, 1);
    assert.equal(await f.store.countPendingOutbox(), 2);
  });

  it('stop() during a claim gives the claimed messages back at once', async () => {
    for (let i = 0; i < 3; i += 1) await sendPin();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let claimStarted: () => void = () => undefined;
    const claiming = new Promise<void>((resolve) => {
      claimStarted = resolve;
    });
    const slowStore = Object.create(f.store) as Store;
    slowStore.claimOutbox = async (now, leaseUntil, max) => {
      claimStarted();
      await gate;
      return f.store.claimOutbox(now, leaseUntil, max);
    };
    const transport = new ScriptedTransport([]);
    const w = worker({ store: slowStore, transports: { sms: transport } });
    w.start();
    await within(claiming);
    const stopping = w.stop(5_000);
    release();
    await within(stopping);

    assert.equal(transport.sent.length, 0);
    // Released rows are claimable at once, without waiting for the 60 s lease.
    const reclaimed = await f.store.claimOutbox(f.now, f.now + MINUTE, 10);
    assert.equal(reclaimed.length, 3);
  });

  it('a hanging delivery does not hold up the next messages', async () => {
    const { pinId: stuckPinId } = await sendPin();
    const delivered: string[] = [];
    let hangStarted: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => {
      hangStarted = resolve;
    });
    const transport: Transport = {
      name: 'partly-stuck',
      send: (message) => {
        if (message.pinId === stuckPinId) {
          hangStarted();
          return new Promise<DeliveryResult>(() => undefined);
        }
        delivered.push(message.pinId);
        return Promise.resolve({ ok: true });
      },
    };
    const w = worker({ transports: { sms: transport }, concurrency: 2, pollIntervalMs: 60_000 });
    w.start();
    await within(hanging);
    const { pinId } = await sendPin();
    w.wake();
    await within(
      (async () => {
        while (delivered.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      })(),
    );
    assert.deepEqual(delivered, [pinId]);
    await w.stop(10);
  });

  it('stop() returns after its timeout when a delivery hangs', async () => {
    await sendPin();
    let startedFirst: () => void = () => undefined;
    const firstStarted = new Promise<void>((resolve) => {
      startedFirst = resolve;
    });
    const transport: Transport = {
      name: 'hung',
      send: () => {
        startedFirst();
        return new Promise<DeliveryResult>(() => undefined);
      },
    };
    const w = worker({ transports: { sms: transport } });
    w.start();
    await within(firstStarted);
    const began = Date.now();
    await within(w.stop(50));
    assert.ok(Date.now() - began < 1_000);
    assert.ok(f.logLines.some((l) => l.includes('still in flight')));
  });

  it('keeps running when the store fails to claim', async () => {
    const failing = Object.create(f.store) as Store;
    let calls = 0;
    failing.claimOutbox = async () => {
      calls += 1;
      throw new Error('database is locked');
    };
    const w = worker({ store: failing });
    await w.drain();
    assert.equal(calls, 1);
    assert.ok(f.logLines.some((l) => l.includes('could not claim outbox messages')));
  });

  it('a node that starts takes back at once what was claimed under its own id, and nothing of another node', async () => {
    const { pinId: heldByA } = await sendPin();
    const { pinId: heldByB } = await sendPin();
    // Claimed by the processes before these, under an hour's lease: they died without finishing.
    const claimed = await f.store.claimOutbox(f.now, f.now + 60 * MINUTE, 1, 'node-a');
    assert.deepEqual(claimed.map((c) => c.pinId), [heldByA]);
    assert.deepEqual((await f.store.claimOutbox(f.now, f.now + 60 * MINUTE, 1, 'node-b')).map((c) => c.pinId), [heldByB]);
    const w = worker();
    await w.drain();
    assert.deepEqual(f.inbox.list(f.accountId).map((m) => m.pinId), [heldByA]);
    assert.equal((await f.store.getPin(f.accountId, heldByB))?.deliveryStatus, 'queued', 'node-b\'s message waits for its lease');
    assert.ok(f.logLines.some((l) => l.includes('took back outbox messages')));
  });

  it('renews the lease of a delivery in flight, so that no other node claims it while it runs', async () => {
    const { pinId } = await sendPin();
    let release: (result: DeliveryResult) => void = () => undefined;
    let started: () => void = () => undefined;
    const sending = new Promise<void>((resolve) => {
      started = resolve;
    });
    const transport: Transport = {
      name: 'slow',
      send: () => {
        started();
        return new Promise<DeliveryResult>((resolve) => {
          release = resolve;
        });
      },
    };
    let renewals = 0;
    const counting = Object.create(f.store) as Store;
    counting.renewOutbox = async (...args) => {
      const renewed = await f.store.renewOutbox(...args);
      renewals += renewed;
      return renewed;
    };
    const w = worker({ store: counting, transports: { sms: transport }, leaseMs: 300 });
    const draining = w.drain();
    await within(sending);
    // Time moves on past the first lease, several times; each renewal extends it from "now".
    for (let i = 0; i < 3; i += 1) {
      f.now += 250;
      const before = renewals;
      await within((async () => {
        while (renewals === before) await new Promise((resolve) => setTimeout(resolve, 10));
      })());
      assert.deepEqual((await f.store.claimOutbox(f.now, f.now + MINUTE, 10, 'node-b')).filter((c) => c.pinId === pinId), [], 'still leased to node-a');
    }
    release({ ok: true });
    await within(draining);
    assert.equal((await f.store.getPin(f.accountId, pinId))?.deliveryStatus, 'sent');
    assert.deepEqual(outcomes(w), { delivered: 1, retried: 0, failed: 0, cancelled: 0 });
  });

  it('refuses nonsensical options', () => {
    assert.throws(() => worker({ maxAttempts: 0 }), /maxAttempts must be a positive integer/);
    assert.throws(() => worker({ concurrency: 1.5 }), /concurrency/);
  });
});
