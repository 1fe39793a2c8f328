// SMS autofill lines of a 2FA message (PUT/GET /api/v1/applications/{appId}/messages/{msgId}/autofill):
// the WICG sms-one-time-codes origin-bound last line and the Android SMS Retriever app hash.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';
import { assertEnvelope, assertFieldError, createEmailMessage, forbid5xx, freshPhone, inboxFor } from '../support/http-assertions.js';

describe('SMS autofill', () => {
  let h: Harness;
  before(async () => { h = forbid5xx(await createHarness()); });
  after(async () => { await h.close(); });

  const path = (m: { applicationId: string; messageId: string }) => `/api/v1/applications/${m.applicationId}/messages/${m.messageId}/autofill`;

  async function deliveredText(message: { applicationId: string; messageId: string }, route = '/2fa/2/pin', body: Record<string, unknown> = {}) {
    const to = freshPhone();
    const sent = await h.request('POST', route, { body: { ...message, to, ...body } });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    await h.node.worker.drain();
    const [delivered] = await inboxFor(h, to);
    return delivered!.text ?? '';
  }

  it('ends the SMS with the origin-bound line `@domain #code`, and keeps it out of Infobip bodies', async () => {
    const message = await createAppAndTemplate(h);
    const before = await h.request('GET', `/2fa/2/applications/${message.applicationId}/messages/${message.messageId}`);
    const set = await h.request('PUT', path(message), { body: { webOtpDomain: 'login.example.com' } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body, { webOtpDomain: 'login.example.com', androidAppHash: null });
    assert.deepEqual((await h.request('GET', path(message))).body, set.body);
    const text = await deliveredText(message);
    const code = /^Your code is (\d{6})\n\n@login\.example\.com #(\d{6})$/.exec(text);
    assert.ok(code, JSON.stringify(text));
    assert.equal(code[2], code[1], 'the last line carries the PIN');
    const after = await h.request('GET', `/2fa/2/applications/${message.applicationId}/messages/${message.messageId}`);
    assert.deepEqual(after.body, before.body, 'the Infobip template body is unchanged');
  });

  it('puts the Android app hash on its own line, before the origin-bound line, and never into a voice call', async () => {
    const message = await createAppAndTemplate(h);
    assert.equal((await h.request('PUT', path(message), { body: { webOtpDomain: 'example.com', androidAppHash: 'FA+9qCX9VSu' } })).status, 200);
    assert.match(await deliveredText(message), /^Your code is (\d{6})\n\nFA\+9qCX9VSu\n@example\.com #\1$/);
    assert.match(await deliveredText(message, '/2fa/2/pin/voice'), /^Your code is \d{6}$/);
    assert.equal((await h.request('PUT', path(message), { body: {} })).status, 200);
    assert.deepEqual((await h.request('GET', path(message))).body, { webOtpDomain: null, androidAppHash: null });
    assert.match(await deliveredText(message), /^Your code is \d{6}$/, '{} turns autofill off');
  });

  it('refuses a domain that is not a host name and a hash that is not 11 base64 characters', async () => {
    const message = await createAppAndTemplate(h);
    for (const webOtpDomain of ['https://example.com', 'example.com:443', 'Example.COM', 'localhost', 'exa mple.com']) {
      assertFieldError(await h.request('PUT', path(message), { body: { webOtpDomain } }), 'webOtpDomain');
    }
    for (const androidAppHash of ['short', 'FA+9qCX9VS!']) assertFieldError(await h.request('PUT', path(message), { body: { androidAppHash } }), 'androidAppHash');
  });

  it('keeps a message with an app hash within 140 bytes: refused when set on a long text, and at a send whose values make it longer', async () => {
    const long = await createAppAndTemplate(h, { template: { messageText: `${'x'.repeat(150)} {{pin}}` } });
    assertFieldError(await h.request('PUT', path(long), { body: { androidAppHash: 'FA+9qCX9VSu' } }), 'androidAppHash');
    assert.equal((await h.request('PUT', path(long), { body: { webOtpDomain: 'example.com' } })).status, 200, 'no byte limit without the hash');

    const named = await createAppAndTemplate(h, { template: { messageText: 'Hi {{name}}, your code is {{pin}}' } });
    assert.equal((await h.request('PUT', path(named), { body: { androidAppHash: 'FA+9qCX9VSu' } })).status, 200);
    assert.match(await deliveredText(named, '/2fa/2/pin', { placeholders: { name: 'Ann' } }), /^Hi Ann, your code is \d{6}\n\nFA\+9qCX9VSu$/);
    const refused = await h.request('POST', '/2fa/2/pin', { body: { ...named, to: freshPhone(), placeholders: { name: 'A'.repeat(130) } } });
    assertFieldError(refused, 'placeholders');
  });

  it('applies to SMS messages of the account only', async () => {
    const message = await createAppAndTemplate(h);
    assertEnvelope(await h.request('PUT', path(message), { key: h.keys.b, body: { webOtpDomain: 'example.com' } }), 404, 'NOT_FOUND');
    assertEnvelope(await h.request('GET', path(message), { key: h.keys.b }), 404, 'NOT_FOUND');
    const email = await createEmailMessage(h, message.applicationId);
    assertEnvelope(await h.request('PUT', path({ applicationId: message.applicationId, messageId: email.messageId }), { body: { webOtpDomain: 'example.com' } }), 400, 'BAD_REQUEST');
  });
});
