// Resending a PIN (/2fa/2/pin/{pinId}/resend, /resend/voice, /resend/email) passes every control a
// send passes: the application's enabled flag, the anti-fraud guards of
// /api/v1/applications/{appId}/security and their per-IP and per-prefix limits. Each refusal is the
// answer a send to the same destination gets at the same moment, and nothing is delivered. The
// conversion breaker counts resends like sends.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';
import { createEmailMessage, forbid5xx, freshEmail, freshPhone, inboxFor, type HttpResult } from '../support/http-assertions.js';

type Message = { applicationId: string; messageId: string };

describe('a resend passes every check a send passes', () => {
  let h: Harness;
  before(async () => {
    h = forbid5xx(await createHarness());
  });
  after(async () => {
    await h?.close();
  });

  const send = (message: Message, to: string, path = '/2fa/2/pin') => h.request('POST', path, { body: { ...message, to } });
  const resend = (pinId: string, path: '' | '/voice' | '/email' = '') => h.request('POST', `/2fa/2/pin/${pinId}/resend${path}`, { body: {} });
  const guard = async (message: Message, settings: Record<string, unknown>) => {
    const on = await h.request('PUT', `/api/v1/applications/${message.applicationId}/security`, { body: { enabled: true, ...settings } });
    assert.equal(on.status, 200, JSON.stringify(on.body));
  };
  const sent = async (message: Message, to: string, path?: string): Promise<string> => {
    const res = await send(message, to, path);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.pinId as string;
  };

  function assertSameAnswer(byResend: HttpResult, bySend: HttpResult, what: string): void {
    assert.equal(byResend.status, bySend.status, `${what}: ${JSON.stringify(byResend.body)}`);
    assert.deepEqual(byResend.body, bySend.body, what);
    assert.equal(byResend.headers['retry-after'], bySend.headers['retry-after'], `${what}: Retry-After`);
    if (bySend.status === 429) assert.match(String(bySend.headers['retry-after']), /^[1-9][0-9]*$/, `${what}: every 429 says when to retry`);
  }

  /** Sends anew to `to` (refused with `status`), then resends `pinId` by SMS and voice: each gets the send's answer and nothing more is delivered. */
  async function assertResendRefusedLikeSend(message: Message, pinId: string, to: string, status: number): Promise<void> {
    const delivered = (await inboxFor(h, to)).length;
    const bySend = await send(message, to);
    assert.equal(bySend.status, status, JSON.stringify(bySend.body));
    assertSameAnswer(await resend(pinId), bySend, 'resend by SMS');
    assertSameAnswer(await resend(pinId, '/voice'), bySend, 'resend by voice');
    assert.equal((await inboxFor(h, to)).length, delivered, 'nothing more is delivered');
  }

  it('a disabled application: SMS, voice and email resends are refused like a send', async () => {
    const sms = await createAppAndTemplate(h);
    const email = { applicationId: sms.applicationId, messageId: (await createEmailMessage(h, sms.applicationId)).messageId };
    const to = freshPhone();
    const address = freshEmail();
    const pinId = await sent(sms, to);
    const emailPinId = await sent(email, address, '/2fa/2/pin/email');
    const off = await h.request('PUT', `/2fa/2/applications/${sms.applicationId}`, { body: { name: 'off', enabled: false } });
    assert.equal(off.body.enabled, false);
    await assertResendRefusedLikeSend(sms, pinId, to, 400);
    const bySend = await send(email, address, '/2fa/2/pin/email');
    assert.equal(bySend.status, 400);
    assertSameAnswer(await resend(emailPinId, '/email'), bySend, 'resend by email');
    assert.equal((await inboxFor(h, address)).length, 1, 'only the first email was delivered');
  });

  const blocks: Array<[string, string, Record<string, unknown>]> = [
    ['a blocked country', '33612345678', { blockedCountries: ['FR'] }],
    ['a blocked prefix', '41799991234', { blockedPrefixes: ['4179999'] }],
    ['a premium-rate number', '41900123456', { refusePremiumNumbers: true }],
  ];
  for (const [what, to, settings] of blocks) {
    it(what, async () => {
      const sms = await createAppAndTemplate(h);
      const pinId = await sent(sms, to);
      await guard(sms, settings);
      await assertResendRefusedLikeSend(sms, pinId, to, 403);
    });
  }

  const breaker = { conversionBreaker: { enabled: true, window: '1h', minSends: 3, minConversionRate: 0.5, blockFor: '10m' } };

  it('a country paused by the conversion breaker', async () => {
    const sms = await createAppAndTemplate(h);
    await guard(sms, breaker);
    const to = '447400110000';
    const pinId = await sent(sms, to);
    await sent(sms, '447400110001');
    await sent(sms, '447400110002');
    assert.equal((await send(sms, '447400110003')).status, 429, 'the breaker trips');
    await assertResendRefusedLikeSend(sms, pinId, to, 429);
  });

  it('the conversion breaker counts resends as sends', async () => {
    const sms = await createAppAndTemplate(h);
    await guard(sms, breaker);
    const pinId = await sent(sms, '447400120000');
    assert.equal((await resend(pinId)).status, 200);
    assert.equal((await resend(pinId, '/voice')).status, 200);
    const next = await send(sms, '447400120001');
    assert.equal(next.status, 429, 'one send and two resends are the 3 sends the breaker waits for');
    assert.match(next.body.requestError.serviceException.text, /conversion breaker \(0 of 3 sends verified/);
  });

  it('the per-IP limit: resends use it up and are refused by it, by SMS, voice and email', async () => {
    const sms = await createAppAndTemplate(h);
    const email = { applicationId: sms.applicationId, messageId: (await createEmailMessage(h, sms.applicationId)).messageId };
    await guard(sms, { perIpSendLimit: '3/1h' });
    const to = freshPhone();
    const address = freshEmail();
    const pinId = await sent(sms, to);
    const emailPinId = await sent(email, address, '/2fa/2/pin/email');
    assert.equal((await resend(pinId)).status, 200);
    await assertResendRefusedLikeSend(sms, pinId, freshPhone(), 429);
    const bySend = await send(email, freshEmail(), '/2fa/2/pin/email');
    assertSameAnswer(await resend(emailPinId, '/email'), bySend, 'resend by email');
    assert.equal((await inboxFor(h, to)).length, 2);
    assert.equal((await inboxFor(h, address)).length, 1);
  });

  it('the per-prefix limit: resends use it up and are refused by it', async () => {
    const sms = await createAppAndTemplate(h);
    await guard(sms, { perPrefixSendLimit: '2/1h' });
    const to = '41795551001';
    const pinId = await sent(sms, to);
    assert.equal((await resend(pinId)).status, 200);
    await assertResendRefusedLikeSend(sms, pinId, '41795552002', 429);
    assert.equal((await inboxFor(h, to)).length, 2);
  });
});
