// PINs by WhatsApp through a real twofa node listening on 127.0.0.1 and a local Graph API peer
// (test/delivery/peers/graph-api-peer.ts) that checks tokens, phone number IDs and the shape of
// authentication-template messages as Meta does, and posts signed status webhooks back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { createWhatsappTransport } from '../../src/delivery/providers/whatsapp/whatsapp-transport.js';
import type { OutgoingMessage } from '../../src/delivery/transport.js';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { freePort } from '../support/server-process.js';
import { GraphApiPeer } from './peers/graph-api-peer.js';

const TO = '41793026727';
const ACCESS_TOKEN = 'EAAGm0PX4ZCpsBAtest-access-token';
const APP_SECRET = 'meta-app-secret-7f3a9c';
const VERIFY_TOKEN = 'subscribe-me-42';

function peerOptions() {
  return { accessToken: ACCESS_TOKEN, phoneNumberId: '106540352242922', appSecret: APP_SECRET, templates: { verify_code: 'en_US' } };
}

async function listening(env: Record<string, string>, port: number): Promise<{ h: Harness; url: string }> {
  const h = await createHarness(env);
  await h.node.app.listen({ host: '127.0.0.1', port });
  return { h, url: `http://127.0.0.1:${port}` };
}

describe('the whatsapp channel (WhatsApp Cloud API)', () => {
  const graph = new GraphApiPeer(peerOptions());
  let h: Harness;
  let callbackUrl: string;
  let ids: { applicationId: string; messageId: string };

  before(async () => {
    await graph.start();
    const started = await listening({ TWOFA_WHATSAPP_DSN: graph.dsn({ verifyToken: VERIFY_TOKEN }) }, await freePort());
    h = started.h;
    callbackUrl = `${started.url}/api/v1/callbacks/whatsapp`;
    ids = await createAppAndTemplate(h);
  });
  after(async () => {
    await h.close();
    await graph.stop();
  });

  async function sendPin(): Promise<{ pinId: string; code: string; wamid: string }> {
    const sent = await h.request('POST', '/2fa/2/pin/whatsapp', { body: { ...ids, to: TO } });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.deepEqual(Object.keys(sent.body).sort(), ['pinId', 'smsStatus', 'to'], 'the answer has the SMS send\'s shape');
    assert.equal(sent.body.smsStatus, 'MESSAGE_SENT');
    const before = graph.messages.length;
    await h.node.worker.drain();
    assert.equal(graph.messages.length, before + 1, 'one template message reached the Graph API');
    const message = graph.messages.at(-1)!;
    return { pinId: sent.body.pinId as string, code: message.code, wamid: message.id };
  }

  it('sends the code as an authentication template (body and copy-code button) and verifies it', async () => {
    const { pinId, code } = await sendPin();
    const message = graph.messages.at(-1)!;
    assert.equal(message.to, TO);
    assert.equal(message.template, 'verify_code');
    assert.equal(message.language, 'en_US');
    assert.match(code, /^\d{6}$/, 'only the code travels, not the SMS text');
    const request = JSON.parse(graph.requests.at(-1)!.body);
    assert.equal(graph.requests.at(-1)!.path, '/v21.0/106540352242922/messages');
    assert.equal(JSON.stringify(request).includes('Your code is'), false, 'the SMS template text never goes to Meta');

    const wrong = await h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin: code === '000000' ? '111111' : '000000' } });
    assert.equal(wrong.body.verified, false);
    const verified = await h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin: code } });
    assert.equal(verified.status, 200);
    assert.equal(verified.body.verified, true);
    const logs = h.logs.join('\n');
    for (const secret of [code, ACCESS_TOKEN, APP_SECRET, TO]) assert.equal(logs.includes(secret), false, 'no code, token, secret or full number in the logs');
  });

  it('records signed status webhooks as delivery receipts in the PIN\'s details and history', async () => {
    const { pinId, wamid } = await sendPin();
    assert.equal(await graph.sendStatus(callbackUrl, wamid, 'sent'), 200, 'progress is accepted and changes nothing');
    assert.equal((await h.request('GET', `/api/v1/pins/${pinId}`)).body.delivery.status, 'sent');
    assert.equal(await graph.sendStatus(callbackUrl, wamid, 'delivered'), 200);
    const details = await h.request('GET', `/api/v1/pins/${pinId}`);
    assert.equal(details.body.channel, 'whatsapp');
    assert.equal(details.body.delivery.status, 'delivered');
    assert.equal(details.body.delivery.transport, 'whatsapp');
    assert.equal(details.body.delivery.providerMessageId, wamid);
    assert.ok(details.body.history.some((e: { event: string; transport: string }) => e.event === 'delivered' && e.transport === 'whatsapp'), JSON.stringify(details.body.history));
  });

  it('records a failed status as undelivered, with Meta\'s error code', async () => {
    const { pinId, wamid } = await sendPin();
    assert.equal(await graph.sendStatus(callbackUrl, wamid, 'failed'), 200);
    const details = await h.request('GET', `/api/v1/pins/${pinId}`);
    assert.equal(details.body.delivery.status, 'undelivered');
    assert.match(details.body.delivery.error, /131026/);
  });

  it('refuses unsigned and wrongly signed status webhooks with 401 and changes nothing', async () => {
    const { pinId, wamid } = await sendPin();
    assert.equal(await graph.sendStatus(callbackUrl, wamid, 'delivered', { sign: false }), 401);
    assert.equal(await graph.sendStatus(callbackUrl, wamid, 'delivered', { secret: 'another-app-secret' }), 401);
    assert.equal((await h.request('GET', `/api/v1/pins/${pinId}`)).body.delivery.status, 'sent');
  });

  it('answers Meta\'s subscription handshake with hub.challenge only for the configured verify token', async () => {
    const query = (token: string) => `/api/v1/callbacks/whatsapp?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1158201444`;
    const good = await h.request('GET', query(VERIFY_TOKEN), { key: null });
    assert.equal(good.status, 200);
    assert.equal(String(good.body), '1158201444');
    assert.match(String(good.headers['content-type']), /^text\/plain/);
    assert.equal((await h.request('GET', query('not-the-token'), { key: null })).status, 401);
  });
});

describe('the whatsapp transport against the Graph API peer', () => {
  const graph = new GraphApiPeer(peerOptions());
  const logger = pino({ level: 'silent' });
  const message: OutgoingMessage = { channel: 'whatsapp', to: TO, text: 'Your code is 482913', code: '482913', pinId: 'P', applicationId: 'A', messageId: 'M', accountId: 'X' };
  before(() => graph.start());
  after(() => graph.stop());
  const transport = (dsn: string) => createWhatsappTransport('TWOFA_WHATSAPP_DSN', new URL(dsn), { logger });

  it('is refused permanently for a wrong access token (401), a phone number ID Meta does not know (404) or a template that does not exist (400)', async () => {
    for (const [dsn, status] of [
      [graph.dsn({ accessToken: 'EAAG-revoked-token' }), 401],
      [graph.dsn({ phoneNumberId: '999999999' }), 404],
      [graph.dsn({ template: 'no_such_template' }), 400],
    ] as const) {
      const result = await transport(dsn).send(message);
      assert.equal(result.ok, false);
      assert.ok(!result.ok && !result.retryable, `HTTP ${status} is not worth retrying`);
      assert.match(!result.ok ? result.error : '', new RegExp(`HTTP ${status}`));
      assert.equal(!result.ok && result.error.includes('482913'), false, 'the code never appears in the error');
    }
    assert.equal(graph.messages.length, 0);
  });

  it('retries later when Meta is throttling (code 130429)', async () => {
    graph.failure = { status: 400, code: 130429, message: 'Rate limit hit' };
    try {
      const result = await transport(graph.dsn()).send(message);
      assert.ok(!result.ok && result.retryable);
    } finally {
      graph.failure = undefined;
    }
  });

  it('refuses a DSN without app_secret or template, naming the variable and never echoing the token', () => {
    assert.throws(() => transport(`whatsapp://${ACCESS_TOKEN}@106540352242922?template=verify_code`), (err: Error) => /TWOFA_WHATSAPP_DSN: .*app_secret/.test(err.message) && !err.message.includes(ACCESS_TOKEN));
    assert.throws(() => transport(`whatsapp://${ACCESS_TOKEN}@106540352242922?app_secret=x`), /template=NAME/);
    assert.throws(() => transport(`whatsapp://${ACCESS_TOKEN}@not-an-id?template=verify_code&app_secret=x`), /phone number ID/);
  });
});

describe('failover(whatsapp sms): a WhatsApp refusal or failed status falls back to SMS', () => {
  const graph = new GraphApiPeer(peerOptions());
  let h: Harness;
  let callbackUrl: string;
  before(async () => {
    await graph.start();
    // log:// stands for the SMS gateway here: the fallback delivers the rendered SMS text to the inbox.
    const started = await listening({ TWOFA_WHATSAPP_DSN: `failover(${graph.dsn()} log://)` }, await freePort());
    h = started.h;
    callbackUrl = `${started.url}/api/v1/callbacks/whatsapp`;
  });
  after(async () => {
    await h.close();
    await graph.stop();
  });

  it('delivers the same PIN as an SMS when the Graph API answers an error, and it verifies', async () => {
    graph.failure = { status: 400, code: 131026, message: 'Message undeliverable' };
    const ids = await createAppAndTemplate(h);
    const sent = await h.request('POST', '/2fa/2/pin/whatsapp', { body: { ...ids, to: TO } });
    assert.equal(sent.status, 200);
    const pin = await deliveredPin(h, sent.body.pinId);
    assert.ok(graph.requests.length >= 1, 'WhatsApp was tried first');
    assert.equal(graph.messages.length, 0);
    const details = await h.request('GET', `/api/v1/pins/${sent.body.pinId}`);
    assert.equal(details.body.delivery.transport, 'log');
    const verified = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { body: { pin } });
    assert.equal(verified.body.verified, true);
    graph.failure = undefined;
  });

  it('sends the same PIN as an SMS when Meta accepted the message and its status webhook says failed', async () => {
    const ids = await createAppAndTemplate(h);
    const sent = await h.request('POST', '/2fa/2/pin/whatsapp', { body: { ...ids, to: TO } });
    await h.node.worker.drain();
    const message = graph.messages.at(-1)!;
    assert.equal((await h.request('GET', `/api/v1/pins/${sent.body.pinId}`)).body.delivery.transport, 'whatsapp');
    assert.equal(await graph.sendStatus(callbackUrl, message.id, 'failed'), 200);
    const pin = await deliveredPin(h, sent.body.pinId);
    assert.equal(pin, message.code, 'the same PIN, not a new one');
    assert.equal((await h.request('GET', `/api/v1/pins/${sent.body.pinId}`)).body.delivery.transport, 'log');
  });
});
