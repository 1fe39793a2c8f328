// When a UI may offer the next resend: X-Next-Resend-At on every send and resend (Infobip bodies stay
// exact), nextResendAt in GET /api/v1/pins/{pinId}, and Retry-After on every 429, all from
// sendPinPerPhoneNumberLimit.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { assertEnvelope, assertRetryAfter, createEmailMessage, forbid5xx, freshEmail, freshPhone } from '../support/http-assertions.js';

describe('resend timing', () => {
  let h: Harness;
  let sms: { applicationId: string; messageId: string };
  before(async () => {
    h = forbid5xx(await createHarness());
    // Three sends per destination a minute: buckets of one second (a sixtieth of the window).
    sms = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '3/1m', sendPinPerApplicationLimit: '10000/1d' } });
  });
  after(async () => { await h.close(); });

  const iso = (ms: number) => new Date(ms).toISOString();
  /** A whole second of the fake clock, so that each send falls in a bucket of its own. */
  const alignClock = () => h.clock.advance(1000 - (h.clock.now % 1000));

  it('a send and its resends say when the next resend fits: at once while the window has room, then when its oldest send leaves it', async () => {
    alignClock();
    const t0 = h.clock.now;
    const to = freshPhone();
    const sent = await h.request('POST', '/2fa/2/pin', { body: { ...sms, to } });
    assert.equal(sent.status, 200);
    assert.deepEqual(Object.keys(sent.body).sort(), ['ncStatus', 'pinId', 'smsStatus', 'to'], 'the Infobip body stays exact');
    assert.equal(sent.headers['x-next-resend-at'], iso(t0));

    h.clock.advance(1000);
    const second = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { body: {} });
    assert.equal(second.status, 200);
    assert.deepEqual(Object.keys(second.body).sort(), ['pinId', 'smsStatus', 'to']);
    assert.equal(second.headers['x-next-resend-at'], iso(t0 + 1000));

    h.clock.advance(1000);
    const third = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend/voice`, { body: {} });
    assert.equal(third.status, 200);
    assert.equal(third.headers['x-next-resend-at'], iso(t0 + 60_000), 'the third send fills the window');

    const details = await h.request('GET', `/api/v1/pins/${sent.body.pinId}`);
    assert.equal(details.body.nextResendAt, iso(t0 + 60_000));

    h.clock.advance(10_000);
    const refused = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { body: {} });
    assertEnvelope(refused, 429, 'TOO_MANY_REQUESTS');
    assert.equal(assertRetryAfter(refused, 60), Math.ceil((t0 + 60_000 - h.clock.now) / 1000), 'Retry-After agrees with nextResendAt');

    h.clock.advance(t0 + 60_000 - h.clock.now);
    const later = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { body: {} });
    assert.equal(later.status, 200, 'allowed at the announced time');
    assert.equal(later.headers['x-next-resend-at'], iso(t0 + 61_000));
  });

  it('the PIN detail peeks without spending a send, and says null once the PIN cannot be resent', async () => {
    alignClock();
    const t0 = h.clock.now;
    const to = freshPhone();
    const sent = await h.request('POST', '/2fa/2/pin', { body: { ...sms, to } });
    for (let i = 0; i < 5; i++) assert.equal((await h.request('GET', `/api/v1/pins/${sent.body.pinId}`)).body.nextResendAt, iso(t0));
    h.clock.advance(1000);
    assert.equal((await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { body: {} })).status, 200, 'reading the PIN spent nothing');
    const pin = await deliveredPin(h, sent.body.pinId);
    assert.equal((await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { body: { pin } })).body.verified, true);
    assert.equal((await h.request('GET', `/api/v1/pins/${sent.body.pinId}`)).body.nextResendAt, null);
  });

  it('email sends and resends carry it too', async () => {
    const email = await createEmailMessage(h, sms.applicationId);
    alignClock();
    const t0 = h.clock.now;
    const to = freshEmail();
    const sent = await h.request('POST', '/2fa/2/pin/email', { body: { applicationId: sms.applicationId, messageId: email.messageId, to } });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.headers['x-next-resend-at'], iso(t0));
    const resent = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend/email`, { body: {} });
    assert.equal(resent.headers['x-next-resend-at'], iso(t0));
  });

  it('a voice send with room left in the window may be resent at once', async () => {
    const unlimited = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '1000/1d' } });
    const sent = await h.request('POST', '/2fa/2/pin/voice', { body: { ...unlimited, to: freshPhone() } });
    assert.equal(sent.headers['x-next-resend-at'], iso(h.clock.now));
  });
});
