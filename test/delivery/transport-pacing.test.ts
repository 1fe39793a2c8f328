// Delivery is bounded by the provider: a node on SQLite sends PINs through DSNs with max_in_flight and
// max_tps to provider stand-ins on 127.0.0.1 that count the requests they hold at once and when each
// arrived, and that answer "not now" (429 with and without Retry-After, 503, SMPP throttling) when a
// test says so. What must hold: no window or rate is ever exceeded, the window is used, and a
// throttling provider slows the transport down without any message failing or spending an attempt.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { ESME_RMSGQFUL, ESME_RTHROTTLED } from '../../src/delivery/smpp/smpp-command-status.js';
import { authenticate } from '../../src/service/api-keys.js';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';
import { CountingProvider, type ProviderAnswer } from './peers/counting-provider.js';
import { SmscPeer } from './smpp/smsc-peer.js';

/** Sends `count` PINs through the API (each queued for delivery); their pinIds. */
async function sendPins(h: Harness, count: number): Promise<string[]> {
  const { applicationId, messageId } = await createAppAndTemplate(h);
  const pinIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: `4179300${String(i).padStart(4, '0')}` } });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    pinIds.push(sent.body.pinId as string);
  }
  return pinIds;
}

/** A sample of the node's /metrics: the sum of the series of `name` whose labels include `labels`. */
async function metric(h: Harness, name: string, labels = ''): Promise<number> {
  const text = (await h.node.app.inject({ method: 'GET', url: '/metrics' })).body;
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!line.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** The delivery statuses the PINs ended with (sent, failed...). */
async function deliveryStatuses(h: Harness, pinIds: string[]): Promise<Set<string>> {
  const principal = await authenticate(h.node.store, `App ${h.keys.a}`);
  const statuses = new Set<string>();
  for (const pinId of pinIds) statuses.add(String((await h.node.store.getPin(principal!.accountId, pinId))?.deliveryStatus));
  return statuses;
}

describe('transport windows and rates', () => {
  let h: Harness | undefined;
  const providers: CountingProvider[] = [];
  const provider = async (delayMs: number) => {
    const started = await new CountingProvider(delayMs).start();
    providers.push(started);
    return started;
  };

  afterEach(async () => {
    await h?.close();
    h = undefined;
    for (const p of providers.splice(0)) await p.stop();
  });

  it('keeps max_in_flight messages at the provider while more are due, and never more', async () => {
    const stand = await provider(40);
    h = await createHarness({ TWOFA_SMS_DSN: stand.dsn('max_in_flight=12') });
    const pinIds = await sendPins(h, 60);
    await h.node.worker.drain();
    assert.equal(stand.maxInFlight, 12, 'the window is full while messages are due, and never exceeded');
    assert.deepEqual([...stand.accepted].sort(), [...pinIds].sort());
  });

  it('never starts more than max_tps messages within a second', async () => {
    const stand = await provider(5);
    h = await createHarness({ TWOFA_SMS_DSN: stand.dsn('max_in_flight=50&max_tps=20') });
    const pinIds = await sendPins(h, 45);
    await h.node.worker.drain();
    // Counted over a little less than a second: loopback may deliver two requests closer together than they were sent.
    assert.ok(stand.mostWithin(950) <= 20, `at most 20 within a second, saw ${stand.mostWithin(950)}`);
    assert.deepEqual([...stand.accepted].sort(), [...pinIds].sort());
  });

  it('holds each member\'s window inside a roundrobin route', async () => {
    const first = await provider(30);
    const second = await provider(30);
    h = await createHarness({ TWOFA_SMS_DSN: `roundrobin(${first.dsn('max_in_flight=3')} ${second.dsn('max_in_flight=3')})` });
    const pinIds = await sendPins(h, 40);
    await h.node.worker.drain();
    assert.ok(first.maxInFlight <= 3 && second.maxInFlight <= 3, `windows of 3 each, saw ${first.maxInFlight} and ${second.maxInFlight}`);
    assert.deepEqual([...first.accepted, ...second.accepted].sort(), [...pinIds].sort());
  });
});

describe('back-pressure from the provider', () => {
  let h: Harness | undefined;
  let stand: CountingProvider | undefined;

  afterEach(async () => {
    await h?.close();
    h = undefined;
    await stand?.stop();
    stand = undefined;
  });

  /** Sends through a provider that says "not now" to its 3rd request; every message must still arrive, with none retried or failed. */
  async function throttledOnce(refusal: ProviderAnswer): Promise<{ h: Harness; stand: CountingProvider; quietMs: number }> {
    stand = await new CountingProvider(10).start();
    stand.answer = (index) => (index === 2 ? refusal : { status: 200 });
    // One at a time, so that the request after the refusal is one the transport sent once it knew.
    h = await createHarness({ TWOFA_SMS_DSN: stand.dsn('max_in_flight=1') });
    const pinIds = await sendPins(h, 12);
    await h.node.worker.drain();
    assert.deepEqual([...stand.accepted].sort(), [...pinIds].sort(), 'every message arrived');
    assert.deepEqual(await deliveryStatuses(h, pinIds), new Set(['sent']));
    assert.equal(await metric(h, 'twofa_deliveries_total', 'outcome="retried"'), 0, 'no attempt was spent on the refusal');
    assert.equal(await metric(h, 'twofa_deliveries_total', 'outcome="failed"'), 0);
    assert.equal(await metric(h, 'twofa_transport_throttled_total', 'transport="webhook"'), 1);
    // The pause: from the refusal to the next request (the same message again).
    return { h, stand, quietMs: stand.arrivals[3]!.at - stand.arrivals[2]!.at };
  }

  it('429 with Retry-After: pauses the transport for that long, then delivers everything', async () => {
    const { h, quietMs } = await throttledOnce({ status: 429, headers: { 'retry-after': '2' } });
    assert.ok(quietMs >= 1900, `nothing new reached the provider for its Retry-After (2 s); the next came after ${Math.round(quietMs)} ms`);
    assert.ok(await metric(h, 'twofa_transport_throttled_seconds_total', 'transport="webhook"') >= 2);
  });

  it('429 without Retry-After and 503: pause the transport, then deliver everything', async () => {
    const { quietMs } = await throttledOnce({ status: 429 });
    assert.ok(quietMs >= 900, `paused about a second; the next came after ${Math.round(quietMs)} ms`);
    await h?.close();
    h = undefined;
    await stand?.stop();
    const second = await throttledOnce({ status: 503 });
    assert.ok(second.quietMs >= 900, `paused about a second; the next came after ${Math.round(second.quietMs)} ms`);
  });
});

describe('SMPP throttling', () => {
  let peer: SmscPeer;
  let h: Harness | undefined;

  before(async () => {
    peer = await SmscPeer.start();
  });
  after(async () => {
    await h?.close();
    await peer.stop();
  });

  it('ESME_RTHROTTLED and ESME_RMSGQFUL slow the bind down; every message is accepted, none failed, no attempt spent', async () => {
    peer.answer = (_submit, index) => (index === 3 ? { status: ESME_RTHROTTLED } : index === 9 ? { status: ESME_RMSGQFUL } : { delayMs: 5 });
    h = await createHarness({ TWOFA_SMS_DSN: peer.dsn('max_in_flight=3').href });
    const pinIds = await sendPins(h, 16);
    await h.node.worker.drain();
    assert.ok(peer.maxInFlight <= 3, `window of 3, saw ${peer.maxInFlight}`);
    const accepted = peer.submits.filter((s) => s.messageId !== undefined);
    assert.equal(accepted.length, pinIds.length, 'each message accepted once');
    assert.deepEqual(await deliveryStatuses(h, pinIds), new Set(['sent']));
    assert.equal(await metric(h, 'twofa_deliveries_total', 'outcome="retried"'), 0);
    assert.equal(await metric(h, 'twofa_deliveries_total', 'outcome="failed"'), 0);
    assert.equal(await metric(h, 'twofa_transport_throttled_total', 'transport="smpp"'), 2);
  });
});

describe('time to the phone', () => {
  let h: Harness | undefined;
  after(async () => {
    await h?.close();
  });

  it('exports the oldest queued message\'s age, reports degraded health past the bound, and the latency once delivered', async () => {
    h = await createHarness({ TWOFA_DELIVERY_DEGRADED_AFTER: '30s' });
    await sendPins(h, 1);
    assert.deepEqual((await h.request('GET', '/healthz', { key: null })).body, { status: 'ok' });
    h.clock.advance(31_000);
    assert.equal(await metric(h, 'twofa_outbox_oldest_age_seconds'), 31);
    const degraded = (await h.request('GET', '/healthz', { key: null })).body;
    assert.equal(degraded.status, 'degraded');
    assert.match(degraded.reason, /oldest queued message has waited 31 s/);
    await h.node.worker.drain();
    assert.deepEqual((await h.request('GET', '/healthz', { key: null })).body, { status: 'ok' });
    assert.equal(await metric(h, 'twofa_outbox_oldest_age_seconds'), 0);
    assert.equal(await metric(h, 'twofa_delivery_latency_seconds_count', 'channel="sms"'), 1);
    assert.equal(await metric(h, 'twofa_delivery_latency_seconds_sum', 'channel="sms"'), 31);
  });
});
