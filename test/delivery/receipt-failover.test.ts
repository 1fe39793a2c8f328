// failover(smpp webhook) when the SMSC accepts a message and later reports it undeliverable: the
// message goes again through the route's next member (a webhook receiver here), once, while the PIN
// is live. Real peers on loopback: the SMSC of the `smpp` package (test/delivery/smpp/smsc-peer.ts)
// sends the receipt; a local HTTP server plays the webhook gateway and reads the PIN it is given.
// Then both kinds of receipt, SMPP's deliver_sm and an HTTP provider's status callback, through one
// route, each overtaking the record of its message.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';
import { ManualTimers } from '../support/manual-timers.js';
import { FakeProvider } from './providers/fake-provider.js';
import { SmscPeer } from './smpp/smsc-peer.js';

const SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('failover on an undelivered receipt', () => {
  let smsc: SmscPeer;
  let gateway: http.Server;
  const messages: { pinId: string; text: string }[] = [];
  const events: { type: string; data: Record<string, unknown> }[] = [];
  let h: Harness;

  before(async () => {
    smsc = await SmscPeer.start();
    gateway = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
      request.on('end', () => {
        const parsed = JSON.parse(body) as { pinId?: string; text?: string; type?: string; data?: Record<string, unknown> };
        if (request.url === '/events') events.push({ type: parsed.type!, data: parsed.data! });
        else messages.push({ pinId: parsed.pinId!, text: parsed.text! });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    const port = (gateway.address() as AddressInfo).port;
    h = await createHarness({ TWOFA_WEBHOOK_ALLOW_PRIVATE: 'true', TWOFA_SMS_DSN: `failover(${smsc.dsn().toString()} webhook+http://127.0.0.1:${port}/sms?secret=${encodeURIComponent(SECRET)})` });
    const subscribed = await h.request('POST', '/api/v1/webhooks', { body: { url: `http://127.0.0.1:${port}/events`, events: ['*'] } });
    assert.equal(subscribed.status, 200);
  });
  after(async () => {
    await h.close();
    await smsc.stop();
    gateway.closeAllConnections();
    await new Promise<void>((resolve) => gateway.close(() => resolve()));
  });

  // The SMSC stamps receipts with the wall clock: the node's clock follows it, as in production.
  const realTime = () => { h.clock.now = Math.max(h.clock.now, Date.now()); };
  const details = (pinId: string) => h.request('GET', `/api/v1/pins/${pinId}`);
  const historyOf = async (pinId: string) => (await details(pinId)).body.history.map((e: { event: string }) => e.event) as string[];

  it('sends through the next member of the route, which delivers the PIN that then verifies', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(h);
    const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026727' } });
    const pinId = sent.body.pinId as string;
    realTime();
    await h.node.worker.drain();
    await smsc.waitFor(() => smsc.submits.length === 1, 5000, 'the submit_sm');
    assert.equal(messages.length, 0, 'the first member took it');
    assert.equal((await details(pinId)).body.delivery.transport, 'smpp');

    await smsc.deliverSm({ esm_class: 4, receipted_message_id: smsc.submits[0]!.messageId, message_state: 5 });
    await waitFor(() => historyOf(pinId), (h) => h.length === 4, 'the message queued again');
    assert.deepEqual(await historyOf(pinId), ['queued', 'sent', 'undelivered', 'queued']);
    realTime();
    await h.node.worker.drain();

    assert.equal(smsc.submits.length, 1, 'not sent to the SMSC again');
    assert.equal(messages.length, 1);
    assert.equal(messages[0]!.pinId, pinId);
    const pin = /code is (\d{6})$/.exec(messages[0]!.text)?.[1];
    assert.ok(pin, 'the gateway got the PIN text');
    const after = await details(pinId);
    assert.deepEqual(after.body.history.map((e: { event: string }) => e.event), ['queued', 'sent', 'undelivered', 'queued', 'sent']);
    assert.equal(after.body.delivery.status, 'sent');
    assert.equal(after.body.delivery.transport, 'webhook');
    assert.equal(after.body.history[2].transport, 'smpp');
    assert.equal((await h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin } })).body.verified, true);

    await h.node.events.drain();
    const mine = events.filter((e) => e.data['pinId'] === pinId);
    assert.deepEqual(mine.map((e) => `${e.type}:${String(e.data['transport'] ?? e.data['status'])}`), ['pin.sent:smpp', 'pin.sent:webhook', 'pin.verified:verified'],
      'an undelivered message that fails over is not reported as failed');
  });

  it('does not fail over once the PIN has expired: the receipt marks it undelivered, reported as pin.failed', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(h, { configuration: { pinTimeToLive: '1m' } });
    const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026728' } });
    const pinId = sent.body.pinId as string;
    const before = smsc.submits.length;
    await h.node.worker.drain();
    await smsc.waitFor(() => smsc.submits.length === before + 1, 5000, 'the submit_sm');
    h.clock.advance(2 * 60_000);
    await smsc.deliverSm({ esm_class: 4, receipted_message_id: smsc.submits[before]!.messageId, message_state: 5 });
    await waitFor(() => historyOf(pinId), (h) => h.includes('undelivered'), 'the receipt');
    await h.node.worker.drain();
    assert.deepEqual(await historyOf(pinId), ['queued', 'sent', 'undelivered']);
    assert.equal((await details(pinId)).body.delivery.status, 'undelivered');
    assert.equal(messages.filter((m) => m.pinId === pinId).length, 0);
    await h.node.events.drain();
    const failed = events.find((e) => e.type === 'pin.failed' && e.data['pinId'] === pinId);
    assert.equal(failed?.data['status'], 'undelivered');
    assert.equal(failed?.data['transport'], 'smpp');
  });
});

describe('an SMPP receipt and an HTTP status callback take the same way in', () => {
  const TOKEN = 'twilio-auth-token-0123456789';
  const ACCOUNT = 'AC0123456789abcdef0123456789abcdef';
  const retries = new ManualTimers();
  let smsc: SmscPeer;
  let twilio: FakeProvider;
  let gateway: http.Server;
  const messages: { pinId: string; text: string }[] = [];
  let h: Harness;

  before(async () => {
    smsc = await SmscPeer.start();
    twilio = new FakeProvider();
    await twilio.start();
    twilio.reply = { status: 201, body: { sid: 'SM0000000000000000second', status: 'queued' } };
    gateway = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
      request.on('end', () => {
        const parsed = JSON.parse(body) as { pinId: string; text: string };
        messages.push({ pinId: parsed.pinId, text: parsed.text });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    const port = (gateway.address() as AddressInfo).port;
    const twilioDsn = `twilio://${ACCOUNT}:${TOKEN}@default?from=%2B15005550006&base_url=${encodeURIComponent(twilio.baseUrl)}`;
    h = await createHarness({
      TWOFA_WEBHOOK_ALLOW_PRIVATE: 'true',
      TWOFA_SMS_DSN: `failover(${smsc.dsn().toString()} ${twilioDsn} webhook+http://127.0.0.1:${port}/sms?secret=${encodeURIComponent(SECRET)})`,
    }, { receiptRetryTimer: retries.timer });
    await smsc.waitFor(() => smsc.boundSessions === 1, 5000, 'the bind');
  });
  after(async () => {
    await h.close();
    await smsc.stop();
    await twilio.stop();
    gateway.closeAllConnections();
    await new Promise<void>((resolve) => gateway.close(() => resolve()));
  });

  const details = async (pinId: string) => (await h.request('GET', `/api/v1/pins/${pinId}`)).body;
  const receiptsAudited = async (pinId: string) => ((await h.request('GET', `/api/v1/audit?pinId=${pinId}`)).body.entries as { event: string; actor: string; reason: string }[])
    .filter((e) => /^delivery\.(delivered|undelivered)$/.test(e.event)).map((e) => `${e.event} ${e.actor} ${e.reason}`);

  it('each is tried again until its message is recorded, audited alike, and moves the message to the next member', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(h);
    const pinId = (await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026729' } })).body.pinId as string;

    // SMPP: the SMSC reports on the message before the node has recorded it (its ids count from msg-1).
    await smsc.deliverSm({ esm_class: 4, receipted_message_id: 'msg-1', message_state: 5 });
    await h.node.receipts.settled();
    assert.deepEqual(retries.pending, [1000], 'the SMPP receipt waits for its next try');
    await h.node.worker.drain();
    assert.equal(smsc.submits[0]?.messageId, 'msg-1');
    retries.fireAll();
    await h.node.receipts.settled();
    assert.deepEqual((await details(pinId)).history.map((e: { event: string }) => e.event), ['queued', 'sent', 'undelivered', 'queued']);

    // The SMSC stamped its receipt with the wall clock: the node's clock follows it, as in production.
    h.clock.now = Math.max(h.clock.now, Date.now());

    // HTTP: Twilio's callback for the requeued message arrives before the node has sent it.
    const params = { MessageSid: 'SM0000000000000000second', MessageStatus: 'undelivered', ErrorCode: '30003', AccountSid: ACCOUNT };
    const url = 'http://localhost:80/api/v1/callbacks/twilio';
    const signature = createHmac('sha1', TOKEN).update(Object.keys(params).sort().reduce((text, k) => text + k + params[k as keyof typeof params], url)).digest('base64');
    const callback = await h.request('POST', '/api/v1/callbacks/twilio', {
      key: null, rawBody: new URLSearchParams(params).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature, host: 'localhost:80' },
    });
    assert.equal(callback.status, 200);
    assert.deepEqual(retries.pending, [1000], 'the HTTP callback waits for its next try, as the SMPP receipt did');
    await h.node.worker.drain();
    assert.equal(twilio.requests.length, 1);
    assert.equal((await details(pinId)).delivery.transport, 'twilio');
    retries.fireAll();
    await h.node.receipts.settled();
    assert.deepEqual(retries.pending, []);

    // Both failed over the same way: the third member delivers the PIN, which verifies.
    await h.node.worker.drain();
    assert.equal(smsc.submits.length, 1);
    assert.equal(twilio.requests.length, 1);
    const delivered = messages.find((m) => m.pinId === pinId);
    const pin = delivered && /code is (\d{6})$/.exec(delivered.text)?.[1];
    assert.ok(pin, 'the webhook gateway got the PIN text');
    const after = await details(pinId);
    assert.deepEqual(after.history.map((e: { event: string; transport: string | null }) => `${e.event}:${e.transport ?? '-'}`),
      ['queued:-', 'sent:smpp', 'undelivered:smpp', 'queued:-', 'sent:twilio', 'undelivered:twilio', 'queued:-', 'sent:webhook']);
    assert.deepEqual(await receiptsAudited(pinId), ['delivery.undelivered smpp UNDELIV', 'delivery.undelivered twilio undelivered (error 30003)']);
    assert.equal((await h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin } })).body.verified, true);
  });
});
