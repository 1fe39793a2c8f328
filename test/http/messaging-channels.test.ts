// The whatsapp and telegram channels through the API, on every store: twofa's own send and resend
// routes beside Infobip's, answered like the SMS send; the channel is recorded, filtered, counted and
// limited like the others; off by default.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, deliveredPin, twilioBasic, type Harness } from '../support/harness.js';
import { assertEnvelope, createEmailMessage, forbid5xx, freshEmail, freshPhone, inboxFor } from '../support/http-assertions.js';

describe('the whatsapp and telegram channels through the API', () => {
  let h: Harness;
  let ids: { applicationId: string; messageId: string };
  before(async () => {
    // log:// stands for both apps here: the inbox shows what each channel was handed.
    h = forbid5xx(await createHarness({ TWOFA_WHATSAPP_DSN: 'log://', TWOFA_TELEGRAM_DSN: 'log://' }));
    ids = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '3/1d' } });
  });
  after(async () => { await h.close(); });

  for (const channel of ['whatsapp', 'telegram'] as const) {
    it(`POST /2fa/2/pin/${channel} answers like the SMS send, delivers by ${channel}, and the PIN verifies`, async () => {
      const to = freshPhone();
      const sent = await h.request('POST', `/2fa/2/pin/${channel}`, { body: { ...ids, to } });
      assert.equal(sent.status, 200);
      assert.deepEqual(sent.body, { pinId: sent.body.pinId, to, smsStatus: 'MESSAGE_SENT' });
      assert.match(String(sent.headers['x-next-resend-at']), /^\d{4}-\d\d-\d\dT/, 'the resend countdown, as on the SMS send');
      const inbox = await inboxFor(h, to);
      assert.deepEqual(inbox.map((m) => m.channel), [channel]);
      const pin = await deliveredPin(h, sent.body.pinId);
      assert.equal((await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { body: { pin } })).body.verified, true);
      const details = await h.request('GET', `/api/v1/pins/${sent.body.pinId}`);
      assert.equal(details.body.channel, channel);
      const listed = await h.request('GET', `/api/v1/pins?channel=${channel}&to=${to}`);
      assert.deepEqual(listed.body.pins.map((p: { pinId: string }) => p.pinId), [sent.body.pinId]);
    });
  }

  it('resends an SMS PIN by WhatsApp and then Telegram under the same pinId; the phone-number limit counts every channel', async () => {
    const to = freshPhone();
    const sent = await h.request('POST', '/2fa/2/pin', { body: { ...ids, to } });
    const pinId = sent.body.pinId as string;
    for (const channel of ['whatsapp', 'telegram']) {
      const resent = await h.request('POST', `/2fa/2/pin/${pinId}/resend/${channel}`);
      assert.equal(resent.status, 200, JSON.stringify(resent.body));
      assert.deepEqual(resent.body, { pinId, to, smsStatus: 'MESSAGE_SENT' });
    }
    assert.deepEqual((await inboxFor(h, to)).map((m) => m.channel).sort(), ['sms', 'telegram', 'whatsapp']);
    assertEnvelope(await h.request('POST', '/2fa/2/pin/whatsapp', { body: { ...ids, to } }), 429, 'TOO_MANY_REQUESTS');
  });

  it('refuses an email address and an email PIN on the phone-only channels', async () => {
    const email = await createEmailMessage(h, ids.applicationId);
    const bad = await h.request('POST', '/2fa/2/pin/whatsapp', { body: { applicationId: ids.applicationId, messageId: email.messageId, to: freshEmail() } });
    assert.equal(bad.status, 400);
    const emailPin = await h.request('POST', '/2fa/2/pin/email', { body: { applicationId: ids.applicationId, messageId: email.messageId, to: freshEmail() } });
    assert.equal((await h.request('POST', `/2fa/2/pin/${emailPin.body.pinId}/resend/telegram`)).status, 400);
  });

  it('takes Twilio Verify\'s Channel=whatsapp under /v2: the code goes by the whatsapp channel and the check approves it', async () => {
    const headers = { 'content-type': 'application/x-www-form-urlencoded', authorization: await twilioBasic(h.node.store, h.keys.a) };
    const service = await h.request('POST', '/v2/Services', { rawBody: 'FriendlyName=Acme', headers });
    assert.equal(service.status, 201, JSON.stringify(service.body));
    const to = freshPhone();
    const started = await h.request('POST', `/v2/Services/${service.body.sid}/Verifications`, { rawBody: `To=%2B${to}&Channel=whatsapp`, headers });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    assert.equal(started.body.channel, 'whatsapp');
    const inbox = await inboxFor(h, to);
    assert.deepEqual(inbox.map((m) => m.channel), ['whatsapp']);
    const code = /(\d{4,10})\D*$/.exec(inbox[0]!.text ?? '')?.[1] ?? '';
    const checked = await h.request('POST', `/v2/Services/${service.body.sid}/VerificationCheck`, { rawBody: `To=%2B${to}&Code=${code}`, headers });
    assert.equal(checked.body.status, 'approved', JSON.stringify(checked.body));
    assert.equal(checked.body.channel, 'whatsapp');
  });

  it('counts the channels in the statistics', async () => {
    const stats = await h.request('GET', '/api/v1/stats');
    assert.equal(stats.status, 200);
    const channels = stats.body.conversion.byChannel.map((c: { channel: string }) => c.channel);
    assert.ok(channels.includes('whatsapp') && channels.includes('telegram'), JSON.stringify(channels));
  });
});

describe('whatsapp and telegram are off by default', () => {
  let h: Harness;
  before(async () => { h = forbid5xx(await createHarness()); });
  after(async () => { await h.close(); });

  it('answers MESSAGE_NOT_SENT and delivers nothing', async () => {
    const ids = await createAppAndTemplate(h);
    for (const channel of ['whatsapp', 'telegram']) {
      const to = freshPhone();
      const sent = await h.request('POST', `/2fa/2/pin/${channel}`, { body: { ...ids, to } });
      assert.deepEqual(sent.body, { pinId: sent.body.pinId, to, smsStatus: 'MESSAGE_NOT_SENT' });
      assert.deepEqual(await inboxFor(h, to), []);
    }
  });
});
