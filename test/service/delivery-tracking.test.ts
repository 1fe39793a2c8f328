// Delivery receipts and a PIN's details (src/service/delivery-tracking.ts) on their own: what a
// provider's receipt changes, what it queues again or moves on, and what an account reads back, on
// the in-memory store, without HTTP, SQL or a provider.
import { pino } from 'pino';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Channel } from '../../src/domain/channels.js';
import type { DeliveryReceipt } from '../../src/delivery/transport.js';
import { DeliveryTracking, getPinDetails } from '../../src/service/delivery-tracking.js';
import { resendPin } from '../../src/service/send-pin.js';
import { putWorkflow } from '../../src/service/workflows.js';
import { ManualTimers } from '../support/manual-timers.js';
import { serviceFixture, storedPin, T0 } from './service-fixture.js';

type Fixture = Awaited<ReturnType<typeof serviceFixture>>;

/** Receipts as the SMPP listener and the provider callbacks hand them over, with the channels' failover routes given; retries fire when the test says. */
function tracking(f: Fixture, routes: Partial<Record<Channel, readonly string[]>> = {}) {
  const timers = new ManualTimers();
  const members = new Set(Object.values(routes).flat());
  const service = new DeliveryTracking(f.ctx, {
    routes: { membersOf: (channel) => routes[channel], hasMember: (transport) => members.has(transport) },
    logger: pino({ level: 'silent' }),
    timer: timers.timer,
  });
  return { timers, settled: () => service.settled(), receive: async (receipt: DeliveryReceipt) => (await service.receive(receipt)) === 'applied' };
}

/** A PIN sent under a workflow of SMS, then voice 5 minutes later; its SMS handed to `smpp`. */
async function deliveredUnderWorkflow() {
  const f = await serviceFixture();
  assert.ok((await putWorkflow(f.ctx, f.principal, f.app.id, { steps: [{ channel: 'sms' }, { channel: 'voice', after: '5m' }] })).ok);
  const { pinId } = await f.send();
  const [first] = await f.deliver('smpp');
  return { f, pinId, first };
}

describe('recordDeliveryReceipt', () => {
  it('marks the PIN delivered, keeps the history, and audits the receipt under the transport\'s name', async () => {
    const f = await serviceFixture();
    const { pinId } = await f.send();
    const [message] = await f.deliver('smpp');
    f.clock.advance(5000);
    assert.equal(await tracking(f).receive({ transport: 'smpp', providerMessageId: `smpp-${message!.id}`, status: 'delivered', at: T0 + 4000 }), true);
    const details = await getPinDetails(f.ctx, f.principal, pinId);
    assert.ok(details.ok);
    assert.deepEqual([details.value.pin.deliveryStatus, details.value.pin.deliveredAt, details.value.state], ['delivered', T0 + 4000, 'pending']);
    assert.deepEqual(details.value.history.map((e) => [e.event, e.transport]), [['queued', null], ['sent', 'smpp'], ['delivered', 'smpp']]);
    const entry = (await f.store.audit.list(f.principal.accountId, { event: 'delivery.delivered' }, 10))[0];
    assert.deepEqual([entry?.pinId, entry?.actor, entry?.reason], [pinId, 'smpp', 'delivered']);
    assert.ok(f.calls.includes('metric:receipt:smpp,delivered'));
  });

  it('ignores a receipt that names no message we sent, or names it under another transport', async () => {
    const f = await serviceFixture();
    const { pinId } = await f.send();
    const [message] = await f.deliver('smpp');
    const receipts = tracking(f);
    assert.equal(await receipts.receive({ transport: 'smpp', providerMessageId: 'someone-else', status: 'delivered', at: T0 }), false);
    assert.equal(await receipts.receive({ transport: 'twilio', providerMessageId: `smpp-${message!.id}`, status: 'delivered', at: T0 }), false);
    // Each is tried again after 1 s and 5 s (the message id may not be recorded yet), then given up.
    assert.deepEqual(receipts.timers.pending, [1000, 1000]);
    receipts.timers.fireAll();
    await receipts.settled();
    assert.deepEqual(receipts.timers.pending, [5000, 5000]);
    receipts.timers.fireAll();
    await receipts.settled();
    assert.deepEqual(receipts.timers.pending, []);
    assert.equal((await f.store.getPin(f.principal.accountId, pinId))?.deliveryStatus, 'sent');
    assert.deepEqual(await f.store.audit.list(f.principal.accountId, { event: 'delivery.delivered' }, 10), []);
    assert.deepEqual(f.calls.filter((c) => c.startsWith('metric:receipt')), ['metric:receipt:smpp,unmatched', 'metric:receipt:twilio,unmatched']);
  });

  it('queues the message again for the next member of a failover route when a member reports it undeliverable, and wakes the worker', async () => {
    const f = await serviceFixture();
    const receipts = tracking(f, { sms: ['smpp', 'twilio'] });
    const { pinId } = await f.send();
    const [first] = await f.deliver('smpp');
    const queuedBefore = f.calls.filter((c) => c === 'messageQueued').length;
    assert.equal(await receipts.receive({ transport: 'smpp', providerMessageId: `smpp-${first!.id}`, status: 'undelivered', error: 'EXPIRED', at: T0 + 1 }), true);
    assert.equal(f.calls.filter((c) => c === 'messageQueued').length, queuedBefore + 1);
    const [again] = await f.claim();
    assert.deepEqual([again?.pinId, again?.channel, again?.request.skipTransports], [pinId, 'sms', ['smpp']], 'the same PIN, not by the member that failed');
    assert.equal((await f.store.getPin(f.principal.accountId, pinId))?.deliveryStatus, 'queued');
  });

  it('without a failover route, an undeliverable latest message makes the workflow\'s next step due at once', async () => {
    const { f, pinId, first: message } = await deliveredUnderWorkflow();
    f.clock.advance(10_000);
    assert.equal(await tracking(f).receive({ transport: 'smpp', providerMessageId: `smpp-${message!.id}`, status: 'undelivered', at: T0 + 9000 }), true);
    assert.ok(f.calls.includes('workflowStepDue'), 'the scheduler is woken');
    const steps = await f.store.workflows.list(f.principal.accountId, pinId);
    assert.deepEqual(steps.map((s) => [s.channel, s.state, s.dueAt]), [['sms', 'failed', T0], ['voice', 'scheduled', T0 + 10_000]]);
    assert.equal((await f.store.getPin(f.principal.accountId, pinId))?.deliveryError, 'undelivered');
  });

  it('a late receipt for an earlier message of the PIN moves neither its state nor its workflow', async () => {
    const { f, pinId, first } = await deliveredUnderWorkflow();
    assert.ok((await resendPin(f.ctx, f.principal, pinId, 'sms', {})).ok);
    await f.deliver('webhook');
    assert.equal(await tracking(f).receive({ transport: 'smpp', providerMessageId: `smpp-${first!.id}`, status: 'undelivered', at: T0 + 1 }), true, 'recorded in the history');
    const pin = await f.store.getPin(f.principal.accountId, pinId);
    assert.deepEqual([pin?.deliveryStatus, pin?.deliveryTransport], ['sent', 'webhook']);
    assert.ok(!f.calls.includes('workflowStepDue'));
    assert.equal((await f.store.workflows.list(f.principal.accountId, pinId))[1]?.dueAt, T0 + 300_000);
  });
});

describe('getPinDetails', () => {
  it('shows when the next resend fits without spending one, and never the PIN itself', async () => {
    const f = await serviceFixture({ configuration: { sendPinPerPhoneNumberLimit: '2/1h' } });
    const { pinId } = await f.send();
    for (let i = 0; i < 3; i++) {
      const details = await getPinDetails(f.ctx, f.principal, pinId);
      assert.ok(details.ok);
      assert.equal(details.value.nextResendAt, T0, 'one more fits now');
    }
    assert.ok((await resendPin(f.ctx, f.principal, pinId, 'sms', {})).ok, 'reading the details spent no resend');
    const full = await getPinDetails(f.ctx, f.principal, pinId);
    assert.equal(full.ok && full.value.nextResendAt, T0 + 3_600_000, 'the window is full until the send leaves it');
    const clear = storedPin(f, pinId, (await f.store.getPin(f.principal.accountId, pinId))!.pinCiphertext)!;
    const details = await getPinDetails(f.ctx, f.principal, pinId);
    assert.ok(details.ok && !JSON.stringify(details.value.history).includes(clear));
    const other = await getPinDetails(f.ctx, { ...f.principal, accountId: 'another-account' }, pinId);
    assert.equal(!other.ok && other.failure.name, 'PIN_NOT_FOUND');
  });
});
