// Delivery through real peers, end to end through the API: a PIN sent over SMPP to a real SMSC whose
// delivery receipt marks it delivered, and one sent through Twilio's API (a local stand-in) whose
// signed status callback marks it undelivered. The PIN is read where the recipient would see it.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { FakeProvider } from '../delivery/providers/fake-provider.js';
import { SmscPeer } from '../delivery/smpp/smsc-peer.js';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';
import { ManualTimers } from '../support/manual-timers.js';

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('delivery receipts end to end', () => {
  let smsc: SmscPeer;
  let h: Harness;

  before(async () => {
    smsc = await SmscPeer.start();
    h = await createHarness({
      TWOFA_SMS_DSN: smsc.dsn().toString(),
      TWOFA_VOICE_DSN: 'log://',
      TWOFA_EMAIL_DSN: 'log://',
    });
  });
  after(async () => {
    await h.close();
    await smsc.stop();
  });

  it('sends over SMPP, and the SMSC receipt marks the PIN delivered', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(h);
    const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026727' } });
    assert.equal(sent.status, 200);
    await h.node.worker.drain();
    await smsc.waitFor(() => smsc.submits.length === 1, 5000, 'the submit_sm');
    const submit = smsc.submits[0]!;
    assert.equal(submit.destinationAddr, '41793026727');
    assert.equal(submit.sourceAddr, 'Acme');
    const pin = /code is (\d{6})$/.exec(submit.text)?.[1];
    assert.ok(pin, `the SMSC received the PIN text: ${submit.text.replace(/\d/g, '#')}`);

    await smsc.deliverSm({ esm_class: 4, receipted_message_id: submit.messageId, message_state: 2 });
    const details = await waitFor(() => h.request('GET', `/api/v1/pins/${sent.body.pinId}`), (r) => r.body.delivery.status === 'delivered', 'the delivered state');
    assert.equal(details.body.delivery.transport, 'smpp');
    assert.equal(details.body.delivery.providerMessageId, submit.messageId);
    assert.deepEqual(details.body.history.map((e: { event: string }) => e.event), ['queued', 'sent', 'delivered']);
    const verified = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { body: { pin } });
    assert.equal(verified.body.verified, true);
  });
});

describe('provider status callbacks end to end', () => {
  let twilio: FakeProvider;
  let h: Harness;
  const token = 'twilio-auth-token-0123456789';
  const retries = new ManualTimers();

  before(async () => {
    twilio = new FakeProvider();
    await twilio.start();
    twilio.reply = { status: 201, body: { sid: 'SM0123456789abcdef', status: 'queued' } };
    h = await createHarness({ TWOFA_SMS_DSN: `twilio://AC0123456789abcdef0123456789abcdef:${token}@default?from=%2B15005550006&base_url=${encodeURIComponent(twilio.baseUrl)}` },
      { receiptRetryTimer: retries.timer });
  });
  after(async () => {
    await h.close();
    await twilio.stop();
  });

  function sign(url: string, params: Record<string, string>): string {
    const data = Object.keys(params).sort().reduce((text, name) => text + name + params[name], url);
    return createHmac('sha1', token).update(data).digest('base64');
  }

  const postCallback = (harness: Harness, params: Record<string, string>) => harness.request('POST', '/api/v1/callbacks/twilio', {
    key: null, rawBody: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': sign('http://localhost:80/api/v1/callbacks/twilio', params), host: 'localhost:80' },
  });
  const givenUp = (harness: Harness) => harness.logs.map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry['msg'] === 'delivery receipt for an unknown message ignored');

  it('sends through Twilio; a signed callback marks it undelivered, a forged one is refused', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(h);
    const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026727' } });
    await h.node.worker.drain();
    assert.equal(twilio.requests.length, 1);
    assert.match(twilio.requests[0]!.body, /To=%2B41793026727/);

    const params = { MessageSid: 'SM0123456789abcdef', MessageStatus: 'undelivered', ErrorCode: '30003', AccountSid: 'AC0123456789abcdef0123456789abcdef' };
    const url = 'http://localhost:80/api/v1/callbacks/twilio';
    const body = new URLSearchParams(params).toString();
    const forged = await h.request('POST', '/api/v1/callbacks/twilio', { key: null, rawBody: body, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'AAAA', host: 'localhost:80' } });
    assert.equal(forged.status, 401);
    const accepted = await h.request('POST', '/api/v1/callbacks/twilio', { key: null, rawBody: body, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': sign(url, params), host: 'localhost:80' } });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));

    const details = await h.request('GET', `/api/v1/pins/${sent.body.pinId}`);
    assert.equal(details.body.delivery.status, 'undelivered');
    assert.equal(details.body.delivery.transport, 'twilio');
    assert.match(details.body.delivery.error, /30003/);
    const malformed = await h.request('POST', '/api/v1/callbacks/vonage', { key: null, body: {} });
    assert.equal(malformed.status, 404, 'a provider that is not configured has no callback');
  });

  it('applies a status callback that overtakes the record of its message on a later try, with its audit entry', async () => {
    twilio.reply = { status: 201, body: { sid: 'SM00000000000000early', status: 'queued' } };
    const { applicationId, messageId } = await createAppAndTemplate(h);
    const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026728' } });
    const pinId = sent.body.pinId as string;
    // Twilio's callback arrives before the node has recorded the message's id (here: before the
    // worker has even handed it over), so it matches no message yet.
    const params = { MessageSid: 'SM00000000000000early', MessageStatus: 'delivered', AccountSid: 'AC0123456789abcdef0123456789abcdef' };
    assert.equal((await postCallback(h, params)).status, 200);
    assert.deepEqual(retries.pending, [1000], 'tried again in a second');
    assert.equal((await h.request('GET', `/api/v1/pins/${pinId}`)).body.delivery.status, 'queued');

    await h.node.worker.drain();
    assert.equal((await h.request('GET', `/api/v1/pins/${pinId}`)).body.delivery.providerMessageId, 'SM00000000000000early');
    retries.fireAll();
    await h.node.receipts.settled();
    assert.deepEqual(retries.pending, [], 'matched: no further try');

    const details = await h.request('GET', `/api/v1/pins/${pinId}`);
    assert.equal(details.body.delivery.status, 'delivered');
    assert.deepEqual(details.body.history.map((e: { event: string }) => e.event), ['queued', 'sent', 'delivered']);
    const audit = (await h.request('GET', `/api/v1/audit?pinId=${pinId}`)).body.entries as { event: string; actor: string }[];
    assert.deepEqual(audit.filter((e) => /^delivery\.(delivered|undelivered)$/.test(e.event)).map((e) => `${e.event} ${e.actor}`), ['delivery.delivered twilio']);
  });

  it('gives up a callback that matches no message after trying again after 1 s and 5 s, and logs it by its message id only', async () => {
    const params = { MessageSid: 'SM000000000000000never', MessageStatus: 'delivered', AccountSid: 'AC0123456789abcdef0123456789abcdef', To: '+41793026727' };
    assert.equal((await postCallback(h, params)).status, 200);
    assert.deepEqual(retries.pending, [1000]);
    retries.fireAll();
    await h.node.receipts.settled();
    assert.deepEqual(retries.pending, [5000]);
    assert.equal(givenUp(h).length, 0, 'not given up before its last try');
    retries.fireAll();
    await h.node.receipts.settled();
    assert.deepEqual(retries.pending, [], 'bounded: no third retry');
    const [entry, ...more] = givenUp(h);
    assert.equal(more.length, 0);
    assert.deepEqual({ transport: entry?.['transport'], providerMessageId: entry?.['providerMessageId'], status: entry?.['status'] },
      { transport: 'twilio', providerMessageId: 'SM000000000000000never', status: 'delivered' });
    assert.equal(h.logs.some((line) => line.includes('41793026727')), false, 'the destination is in no log line');
  });

  it('drops the retries still waiting when the node stops, and logs each', async () => {
    const timers = new ManualTimers();
    const stopping = await createHarness({ TWOFA_SMS_DSN: `twilio://AC0123456789abcdef0123456789abcdef:${token}@default?from=%2B15005550006&base_url=${encodeURIComponent(twilio.baseUrl)}` },
      { receiptRetryTimer: timers.timer });
    try {
      assert.equal((await postCallback(stopping, { MessageSid: 'SM00000000000000000late', MessageStatus: 'undelivered', AccountSid: 'AC0123456789abcdef0123456789abcdef' })).status, 200);
      assert.deepEqual(timers.pending, [1000]);
    } finally {
      await stopping.close();
    }
    assert.deepEqual(timers.pending, [], 'cancelled');
    assert.deepEqual(givenUp(stopping).map((e) => `${String(e['providerMessageId'])}: ${String(e['reason'])}`), ['SM00000000000000000late: the node stopped before its next try']);
  });
});
