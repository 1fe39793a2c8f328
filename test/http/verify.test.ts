// POST /2fa/2/pin/{pinId}/verify: every counted attempt is a 200; only what is refused before it is
// counted (a malformed body, verifyPinLimit, an unknown pinId) is an error status.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { MISSING_ID, assertEnvelope, assertFieldError, assertRetryAfter, createEmailMessage, forbid5xx, freshEmail, freshPhone } from '../support/http-assertions.js';

describe('verifying PINs', () => {
  let h: Harness;
  let app: { applicationId: string; messageId: string };
  before(async () => {
    h = forbid5xx(await createHarness());
    app = await createAppAndTemplate(h);
  });
  after(async () => { await h.close(); });

  /** Sends a PIN with `target` (an application and template) and reads it from the inbox. */
  async function sendPin(target = app, key?: string) {
    const to = freshPhone();
    const sent = await h.request('POST', '/2fa/2/pin', { body: { ...target, to }, ...(key ? { key } : {}) });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const pin = await deliveredPin(h, sent.body.pinId);
    return { pinId: sent.body.pinId as string, to, pin, wrong: wrongPinFor(pin) };
  }
  const wrongPinFor = (pin: string) => (pin[0] === '1' ? '2' : '1') + pin.slice(1);
  const verify = (pinId: string, body: unknown, key?: string) => h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body, ...(key ? { key } : {}) });

  it('the right PIN is verified: 200 with exactly pinId, msisdn, verified and attemptsRemaining', async () => {
    const { pinId, to, pin } = await sendPin();
    const res = await verify(pinId, { pin });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { pinId, msisdn: to, verified: true, attemptsRemaining: 9 });
  });

  it('a wrong PIN is a 200 with verified false, pinError WRONG_PIN and fewer attempts left each time', async () => {
    const { pinId, to, wrong } = await sendPin();
    for (let remaining = 9; remaining >= 7; remaining -= 1) {
      const res = await verify(pinId, { pin: wrong });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { pinId, msisdn: to, verified: false, attemptsRemaining: remaining, pinError: 'WRONG_PIN' });
    }
  });

  it('a PIN of the wrong length, alphabet or spacing is a counted WRONG_PIN; only the exact PIN verifies', async () => {
    const { pinId, pin } = await sendPin();
    const candidates = ['12', '', 'abcdef', pin.slice(0, 5), `${pin}0`, ` ${pin}`, `${pin} `, `${pin}\n`, 'x'.repeat(1000)];
    let remaining = 9;
    for (const candidate of candidates) {
      const res = await verify(pinId, { pin: candidate });
      assert.equal(res.status, 200, `${JSON.stringify(candidate)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.verified, false, JSON.stringify(candidate));
      assert.equal(res.body.pinError, 'WRONG_PIN');
      assert.equal(res.body.attemptsRemaining, remaining);
      remaining -= 1;
    }
    const right = await verify(pinId, { pin });
    assert.equal(right.body.verified, true);
    assert.equal(right.body.attemptsRemaining, remaining);
  });

  it('letters are compared exactly (no case folding)', async () => {
    const alpha = await createAppAndTemplate(h, { template: { pinType: 'ALPHA', pinLength: 6 } });
    const { pinId, pin } = await sendPin(alpha);
    const lower = await verify(pinId, { pin: pin.toLowerCase() });
    assert.equal(lower.body.verified, false);
    assert.equal(lower.body.pinError, 'WRONG_PIN');
    assert.equal((await verify(pinId, { pin })).body.verified, true);
  });

  it('a missing pin or one that is not a string is a 400 and is not counted', async () => {
    const { pinId, wrong } = await sendPin();
    assertFieldError(await verify(pinId, {}), 'pin');
    assertFieldError(await verify(pinId, { pin: 1234 }), 'pin');
    assertFieldError(await verify(pinId, { pin: Number(wrong) }), 'pin');
    assertFieldError(await verify(pinId, { pin: ['1234'] }), 'pin');
    assertFieldError(await verify(pinId, { pin: true }), 'pin');
    assertFieldError(await verify(pinId, { pin: null }), 'pin');
    assertEnvelope(await h.request('POST', `/2fa/2/pin/${pinId}/verify`), 400, 'BAD_REQUEST');
    assertEnvelope(await h.request('POST', `/2fa/2/pin/${pinId}/verify`, { rawBody: '{"pin":', headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST');
    const counted = await verify(pinId, { pin: wrong });
    assert.equal(counted.body.attemptsRemaining, 9, 'none of the refused requests was counted');
  });

  it('after pinAttempts wrong PINs: NO_MORE_PIN_ATTEMPTS, and even the right PIN fails', async () => {
    const limited = await createAppAndTemplate(h, { configuration: { pinAttempts: 3 } });
    const { pinId, to, pin, wrong } = await sendPin(limited);
    for (const remaining of [2, 1, 0]) {
      const res = await verify(pinId, { pin: wrong });
      assert.equal(res.body.attemptsRemaining, remaining);
      assert.equal(res.body.verified, false);
    }
    for (const candidate of [wrong, pin]) {
      const res = await verify(pinId, { pin: candidate });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { pinId, msisdn: to, verified: false, attemptsRemaining: 0, pinError: 'NO_MORE_PIN_ATTEMPTS' });
    }
    assertEnvelope(await h.request('POST', `/2fa/2/pin/${pinId}/resend`, { body: {} }), 400, 'BAD_REQUEST');
  });

  it('after pinTimeToLive: TTL_EXPIRED, even with the right PIN, and the attempt is not counted', async () => {
    const short = await createAppAndTemplate(h, { configuration: { pinTimeToLive: '2m' } });
    const { pinId, to, pin, wrong } = await sendPin(short);
    assert.equal((await verify(pinId, { pin: wrong })).body.attemptsRemaining, 9);
    h.clock.advance(2 * 60_000 + 1);
    for (const candidate of [pin, wrong]) {
      const res = await verify(pinId, { pin: candidate });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { pinId, msisdn: to, verified: false, attemptsRemaining: 9, pinError: 'TTL_EXPIRED' });
    }
  });

  it('just before pinTimeToLive the PIN is still good', async () => {
    const short = await createAppAndTemplate(h, { configuration: { pinTimeToLive: '2m' } });
    const { pinId, pin } = await sendPin(short);
    h.clock.advance(2 * 60_000 - 1000);
    assert.equal((await verify(pinId, { pin })).body.verified, true);
  });

  it('allowMultiplePinVerifications true: the right PIN verifies again', async () => {
    const { pinId, to, pin } = await sendPin();
    assert.deepEqual((await verify(pinId, { pin })).body, { pinId, msisdn: to, verified: true, attemptsRemaining: 9 });
    const again = await verify(pinId, { pin });
    assert.equal(again.status, 200);
    assert.equal(again.body.verified, true);
    assert.ok(!('pinError' in again.body));
    const wrong = await verify(pinId, { pin: wrongPinFor(pin) });
    assert.equal(wrong.body.verified, false, 'a wrong PIN after a verification is still wrong');
    assert.equal(wrong.body.pinError, 'WRONG_PIN');
  });

  it('allowMultiplePinVerifications false: a second verification is ALREADY_VERIFIED', async () => {
    const single = await createAppAndTemplate(h, { configuration: { allowMultiplePinVerifications: false } });
    const { pinId, to, pin } = await sendPin(single);
    assert.deepEqual((await verify(pinId, { pin })).body, { pinId, msisdn: to, verified: true, attemptsRemaining: 9 });
    for (const candidate of [pin, wrongPinFor(pin)]) {
      const res = await verify(pinId, { pin: candidate });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { pinId, msisdn: to, verified: false, attemptsRemaining: 9, pinError: 'ALREADY_VERIFIED' });
    }
  });

  it('allowMultiplePinVerifications false: concurrent right PINs verify exactly once', async () => {
    const single = await createAppAndTemplate(h, { configuration: { allowMultiplePinVerifications: false } });
    const { pinId, pin } = await sendPin(single);
    const answers = await Promise.all(Array.from({ length: 8 }, () => verify(pinId, { pin })));
    assert.ok(answers.every((a) => a.status === 200));
    assert.equal(answers.filter((a) => a.body.verified === true).length, 1);
  });

  it('concurrent wrong PINs never exceed pinAttempts', async () => {
    const limited = await createAppAndTemplate(h, { configuration: { pinAttempts: 3 } });
    const { pinId, wrong } = await sendPin(limited);
    const answers = await Promise.all(Array.from({ length: 10 }, () => verify(pinId, { pin: wrong })));
    const counted = answers.filter((a) => a.body.pinError === 'WRONG_PIN').map((a) => a.body.attemptsRemaining).sort();
    assert.deepEqual(counted, [0, 1, 2]);
    assert.equal(answers.filter((a) => a.body.pinError === 'NO_MORE_PIN_ATTEMPTS').length, 7);
  });

  it('verifyPinLimit: a verification past the limit is a 429 with Retry-After and is not counted', async () => {
    const limited = await createAppAndTemplate(h, { configuration: { verifyPinLimit: '2/10s' } });
    const { pinId, pin, wrong } = await sendPin(limited);
    assert.equal((await verify(pinId, { pin: wrong })).body.attemptsRemaining, 9);
    assert.equal((await verify(pinId, { pin: wrong })).body.attemptsRemaining, 8);
    const refused = await verify(pinId, { pin });
    assertEnvelope(refused, 429, 'TOO_MANY_REQUESTS');
    assertRetryAfter(refused, 10);
    assertEnvelope(await verify(pinId, { pin: wrong }), 429, 'TOO_MANY_REQUESTS');
    // The body is checked before the limit: a malformed request stays a 400.
    assertFieldError(await verify(pinId, { pin: 5 }), 'pin');
    h.clock.advance(11_000);
    const next = await verify(pinId, { pin: wrong });
    assert.equal(next.status, 200);
    assert.equal(next.body.attemptsRemaining, 7, 'the refused verifications were not counted');
    assert.equal((await verify(pinId, { pin })).body.verified, true);
  });

  it('verifyPinLimit counts per destination: another number of the same application is not limited', async () => {
    const limited = await createAppAndTemplate(h, { configuration: { verifyPinLimit: '1/10s' } });
    const first = await sendPin(limited);
    const second = await sendPin(limited);
    assert.equal((await verify(first.pinId, { pin: first.wrong })).status, 200);
    assertEnvelope(await verify(first.pinId, { pin: first.pin }), 429, 'TOO_MANY_REQUESTS');
    assert.equal((await verify(second.pinId, { pin: second.pin })).body.verified, true);
  });

  it('an unknown pinId is 404, and one of another account is the same 404', async () => {
    const ofB = await createAppAndTemplate(h, { key: h.keys.b });
    const foreign = await sendPin(ofB, h.keys.b);
    const missing = await verify(MISSING_ID, { pin: '1234' });
    const other = await verify(foreign.pinId, { pin: foreign.pin });
    assertEnvelope(missing, 404, 'NOT_FOUND');
    assertEnvelope(other, 404, 'NOT_FOUND');
    assert.equal(JSON.stringify(other.body).replaceAll(foreign.pinId, '<id>'), JSON.stringify(missing.body).replaceAll(MISSING_ID, '<id>'));
    const own = await verify(foreign.pinId, { pin: foreign.pin }, h.keys.b);
    assert.deepEqual(own.body, { pinId: foreign.pinId, msisdn: foreign.to, verified: true, attemptsRemaining: 9 }, "A's attempt neither verified nor counted on B's PIN");
  });

  it('a pinId of the wrong shape is 404 or 400, never a 5xx', async () => {
    for (const id of ['abc', '1', 'ZZZZ', 'x'.repeat(64)]) {
      const res = await verify(id, { pin: '1234' });
      assert.ok(res.status === 404 || res.status === 400, `${id}: ${res.status}`);
    }
    assertEnvelope(await verify('x'.repeat(65), { pin: '1234' }), 400, 'BAD_REQUEST');
  });

  it('for an email PIN, msisdn is the email address', async () => {
    const { messageId } = await createEmailMessage(h, app.applicationId);
    const to = freshEmail();
    const sent = await h.request('POST', '/2fa/2/pin/email', { body: { applicationId: app.applicationId, messageId, to } });
    assert.equal(sent.status, 200);
    const pin = await deliveredPin(h, sent.body.pinId);
    assert.match(pin, /^\d{4}$/);
    const wrong = await verify(sent.body.pinId, { pin: wrongPinFor(pin) });
    assert.deepEqual(wrong.body, { pinId: sent.body.pinId, msisdn: to, verified: false, attemptsRemaining: 9, pinError: 'WRONG_PIN' });
    const right = await verify(sent.body.pinId, { pin });
    assert.deepEqual(right.body, { pinId: sent.body.pinId, msisdn: to, verified: true, attemptsRemaining: 8 });
  });

  it('a PIN resent by voice is verified with the same code', async () => {
    const { pinId, pin } = await sendPin();
    assert.equal((await h.request('POST', `/2fa/2/pin/${pinId}/resend/voice`)).status, 200);
    assert.equal(await deliveredPin(h, pinId), pin);
    assert.equal((await verify(pinId, { pin })).body.verified, true);
  });
});
