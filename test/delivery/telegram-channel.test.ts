// PINs by Telegram through a real twofa node listening on 127.0.0.1 and a local Telegram Gateway
// peer (test/delivery/peers/telegram-gateway-peer.ts) that checks the token and the request as the
// Gateway does, and posts signed delivery reports to the callback_url it was given.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { createTelegramTransport, telegramTtl } from '../../src/delivery/providers/telegram/telegram-transport.js';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';
import { freePort } from '../support/server-process.js';
import { TelegramGatewayPeer } from './peers/telegram-gateway-peer.js';

const TO = '41793026727';
const TOKEN = 'AAGz-telegram-gateway-token-0123456789';

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the telegram channel (Telegram Gateway)', () => {
  const gateway = new TelegramGatewayPeer(TOKEN, new Set([`+${TO}`]));
  let h: Harness;
  let ids: { applicationId: string; messageId: string };

  before(async () => {
    await gateway.start();
    const port = await freePort();
    const callback = encodeURIComponent(`http://127.0.0.1:${port}/api/v1/callbacks/telegram`);
    h = await createHarness({ TWOFA_TELEGRAM_DSN: `telegram://${TOKEN}@default?sender_username=AcmeCodes&callback_url=${callback}&check_send_ability=true&base_url=${encodeURIComponent(gateway.baseUrl)}` });
    await h.node.app.listen({ host: '127.0.0.1', port });
    ids = await createAppAndTemplate(h, { configuration: { pinTimeToLive: '10m' } });
  });
  after(async () => {
    await h.close();
    await gateway.stop();
  });

  async function sendPin(): Promise<{ pinId: string; code: string; requestId: string }> {
    const sent = await h.request('POST', '/2fa/2/pin/telegram', { body: { ...ids, to: TO } });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.smsStatus, 'MESSAGE_SENT');
    const before = gateway.sent.length;
    await h.node.worker.drain();
    assert.equal(gateway.sent.length, before + 1, 'one code reached the Gateway');
    const code = gateway.sent.at(-1)!;
    return { pinId: sent.body.pinId as string, code: code.code, requestId: code.requestId };
  }

  it('sends twofa\'s own code with the PIN\'s ttl, the callback URL and a payload naming the PIN, after checkSendAbility; and it verifies', async () => {
    const { pinId, code, requestId } = await sendPin();
    const sent = gateway.sent.at(-1)!;
    assert.equal(sent.phoneNumber, `+${TO}`);
    assert.match(code, /^\d{6}$/);
    assert.equal(sent.ttl, 600, 'the PIN lives 10 minutes');
    assert.equal(sent.payload, pinId);
    assert.equal(sent.senderUsername, 'AcmeCodes');
    assert.match(sent.callbackUrl ?? '', /\/api\/v1\/callbacks\/telegram$/);
    const abilities = gateway.calls('checkSendAbility');
    assert.equal(abilities.at(-1)?.phone_number, `+${TO}`);
    assert.equal(gateway.calls('sendVerificationMessage').at(-1)?.request_id, requestId, 'the send reuses checkSendAbility\'s request_id (billed once)');

    const verified = await h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin: code } });
    assert.equal(verified.body.verified, true);
    const logs = h.logs.join('\n');
    for (const secret of [code, TOKEN, TO]) assert.equal(logs.includes(secret), false, 'no code, token or full number in the logs');
  });

  it('revokes the Telegram message once the PIN is verified, after the verify answer', async () => {
    const { pinId, code, requestId } = await sendPin();
    const verified = await h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin: code } });
    assert.equal(verified.body.verified, true);
    await waitFor(() => gateway.sent.find((s) => s.requestId === requestId)?.revoked === true, 'revokeVerificationMessage');
    assert.deepEqual(gateway.calls('revokeVerificationMessage').filter((c) => c.request_id === requestId), [{ request_id: requestId }]);
  });

  it('revokes the Telegram message when the last wrong attempt locks the PIN', async () => {
    const locking = await createAppAndTemplate(h, { configuration: { pinAttempts: 2 } });
    const sent = await h.request('POST', '/2fa/2/pin/telegram', { body: { ...locking, to: TO } });
    await h.node.worker.drain();
    const { code, requestId } = gateway.sent.at(-1)!;
    const wrong = code === '000000' ? '111111' : '000000';
    assert.equal((await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { body: { pin: wrong } })).body.attemptsRemaining, 1);
    assert.equal((await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { body: { pin: wrong } })).body.attemptsRemaining, 0);
    await waitFor(() => gateway.sent.find((s) => s.requestId === requestId)?.revoked === true, 'revokeVerificationMessage after the lock');
  });

  it('records signed delivery reports as receipts in the PIN\'s details and history', async () => {
    const { pinId, requestId } = await sendPin();
    assert.equal(await gateway.report(requestId, 'delivered'), 200);
    const details = await h.request('GET', `/api/v1/pins/${pinId}`);
    assert.equal(details.body.channel, 'telegram');
    assert.equal(details.body.delivery.status, 'delivered');
    assert.equal(details.body.delivery.providerMessageId, requestId);
    assert.ok(details.body.history.some((e: { event: string; transport: string }) => e.event === 'delivered' && e.transport === 'telegram'), JSON.stringify(details.body.history));
  });

  it('answers a signed report 200 OK, the only answer the Gateway takes as received (it posts anything else again, up to ten times, then drops it)', async () => {
    const { requestId } = await sendPin();
    assert.equal(await gateway.report(requestId, 'sent'), 200, 'progress');
    assert.equal(await gateway.report(requestId, 'read'), 200, 'a final status');
  });

  it('refuses unsigned, wrongly signed and stale reports with 401 and changes nothing', async () => {
    const { pinId, requestId } = await sendPin();
    assert.equal(await gateway.report(requestId, 'delivered', { sign: false }), 401);
    assert.equal(await gateway.report(requestId, 'delivered', { token: 'another-token' }), 401);
    assert.equal(await gateway.report(requestId, 'delivered', { timestamp: Math.floor(Date.now() / 1000) - 3600 }), 401, 'an hour-old report is a replay');
    assert.equal((await h.request('GET', `/api/v1/pins/${pinId}`)).body.delivery.status, 'sent');
  });

  it('refuses a number without Telegram at checkSendAbility, permanently', async () => {
    const sent = await h.request('POST', '/2fa/2/pin/telegram', { body: { ...ids, to: '41793026728' } });
    assert.equal(sent.status, 200);
    await h.node.worker.drain();
    const details = await h.request('GET', `/api/v1/pins/${sent.body.pinId}`);
    assert.equal(details.body.delivery.status, 'failed');
    assert.match(details.body.delivery.error, /PHONE_NUMBER_INVALID/);
  });
});

describe('the telegram transport against the Gateway peer', () => {
  const gateway = new TelegramGatewayPeer(TOKEN, new Set([`+${TO}`]));
  before(() => gateway.start());
  after(() => gateway.stop());
  const transport = (token: string) => createTelegramTransport('TWOFA_TELEGRAM_DSN', new URL(`telegram://${token}@default?base_url=${encodeURIComponent(gateway.baseUrl)}`), { logger: pino({ level: 'silent' }) });
  const message = { channel: 'telegram' as const, to: TO, text: 'Your code is 482913', code: '482913', expiresAt: Date.now() + 60_000, pinId: 'P', applicationId: 'A', messageId: 'M', accountId: 'X' };

  it('is refused permanently for a wrong token (401 ACCESS_TOKEN_INVALID), never showing the code', async () => {
    const result = await transport('revoked-token').send(message);
    assert.ok(!result.ok && !result.retryable, JSON.stringify(result));
    assert.match(!result.ok ? result.error : '', /HTTP 401: ACCESS_TOKEN_INVALID/);
    assert.equal(gateway.sent.length, 0);
  });

  it('refuses a code the Gateway cannot take (letters, or more than 8 digits) before calling it', async () => {
    for (const code of ['AB12CD', '123456789']) {
      const result = await transport(TOKEN).send({ ...message, code });
      assert.ok(!result.ok && !result.retryable);
      assert.match(!result.ok ? result.error : '', /NUMERIC template with pinLength 4 to 8/);
    }
    assert.equal(gateway.requests.filter((r) => r.headers.authorization === `Bearer ${TOKEN}`).length, 0);
  });
});

describe('telegramTtl', () => {
  it('is the PIN\'s remaining life in seconds, within the Gateway\'s 30..3600', () => {
    const now = 1_700_000_000_000;
    assert.equal(telegramTtl(now + 300_000, now), 300);
    assert.equal(telegramTtl(now + 10_000, now), 30);
    assert.equal(telegramTtl(now + 86_400_000, now), 3600);
    assert.equal(telegramTtl(undefined, now), 3600);
  });
});
