// GET /2fa/2/applications/{appId}/verifications?msisdn=&verified=&sent=
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { MISSING_ID, assertEnvelope, assertFieldError, createEmailMessage, forbid5xx, freshEmail, freshPhone } from '../support/http-assertions.js';

describe('verification status', () => {
  let h: Harness;
  let app: { applicationId: string; messageId: string };
  let to: string;
  let verifiedPinId: string;
  let verifiedPin: string;
  let sentAt: number[];
  let verifiedAt: number;

  const status = (query: string, appId = app.applicationId, key?: string) =>
    h.request('GET', `/2fa/2/applications/${appId}/verifications?${query}`, { ...(key ? { key } : {}) });

  before(async () => {
    h = forbid5xx(await createHarness());
    app = await createAppAndTemplate(h);
    to = freshPhone();
    // Two PINs to one number, one second apart; the newer one is verified after another second.
    sentAt = [];
    const first = await h.request('POST', '/2fa/2/pin', { body: { ...app, to } });
    await deliveredPin(h, first.body.pinId);
    sentAt.push(h.clock.now);
    h.clock.advance(1000);
    const second = await h.request('POST', '/2fa/2/pin', { body: { ...app, to } });
    const pin = await deliveredPin(h, second.body.pinId);
    sentAt.push(h.clock.now);
    verifiedPinId = second.body.pinId;
    verifiedPin = pin;
    h.clock.advance(1000);
    const verified = await h.request('POST', `/2fa/2/pin/${verifiedPinId}/verify`, { body: { pin } });
    assert.equal(verified.body.verified, true);
    verifiedAt = h.clock.now;
  });
  after(async () => { await h.close(); });

  it('lists every PIN sent to the number, newest first, with sentAt and (only when verified) verifiedAt in milliseconds', async () => {
    const res = await status(`msisdn=${to}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      verifications: [
        { msisdn: to, verified: true, verifiedAt, sentAt: sentAt[1] },
        { msisdn: to, verified: false, sentAt: sentAt[0] },
      ],
    });
    assert.ok(Math.abs(Number(res.body.verifications[0]?.sentAt) - Date.now()) < 60_000, 'sentAt is UNIX milliseconds');
  });

  it('filters on verified=true|false', async () => {
    const yes = await status(`msisdn=${to}&verified=true`);
    assert.deepEqual(yes.body, { verifications: [{ msisdn: to, verified: true, verifiedAt, sentAt: sentAt[1] }] });
    const no = await status(`msisdn=${to}&verified=false`);
    assert.deepEqual(no.body, { verifications: [{ msisdn: to, verified: false, sentAt: sentAt[0] }] });
  });

  it('filters on sent=true|false', async () => {
    const both = await status(`msisdn=${to}&sent=true&verified=false`);
    assert.deepEqual(both.body, { verifications: [{ msisdn: to, verified: false, sentAt: sentAt[0] }] });
    const all = await status(`msisdn=${to}&sent=true`);
    assert.equal(all.body.verifications.length, 2);
    assert.deepEqual((await status(`msisdn=${to}&sent=false`)).body, { verifications: [] });
    assert.deepEqual((await status(`msisdn=${to}&sent=false&verified=true`)).body, { verifications: [] });
  });

  it('a PIN that was never handed to a transport has no sentAt and is listed under sent=false', async () => {
    // A node whose SMS channel is switched off stores the PIN and sends nothing.
    const off = forbid5xx(await createHarness({ TWOFA_SMS_DSN: 'none://' }));
    try {
      const target = await createAppAndTemplate(off);
      const number = freshPhone();
      const sent = await off.request('POST', '/2fa/2/pin', { body: { ...target, to: number } });
      assert.equal(sent.status, 200);
      assert.equal(sent.body.smsStatus, 'MESSAGE_NOT_SENT');
      await off.node.worker.drain();
      const q = (query: string) => off.request('GET', `/2fa/2/applications/${target.applicationId}/verifications?${query}`);
      assert.deepEqual((await q(`msisdn=${number}`)).body, { verifications: [{ msisdn: number, verified: false }] });
      assert.deepEqual((await q(`msisdn=${number}&sent=false`)).body, { verifications: [{ msisdn: number, verified: false }] });
      assert.deepEqual((await q(`msisdn=${number}&sent=true`)).body, { verifications: [] });
    } finally {
      await off.close();
    }
  });

  it('a number nothing was sent to has an empty list', async () => {
    const res = await status(`msisdn=${freshPhone()}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { verifications: [] });
  });

  it('only PINs of this application are listed', async () => {
    const other = await createAppAndTemplate(h);
    assert.deepEqual((await status(`msisdn=${to}`, other.applicationId)).body, { verifications: [] });
  });

  it('the query is the one COMM-GO sends (all three parameters) and the one of the Node SDK (trailing slash)', async () => {
    const go = await status(`msisdn=${to}&sent=false&verified=false`);
    assert.equal(go.status, 200);
    assert.deepEqual(go.body, { verifications: [] });
    const node = await h.request('GET', `/2fa/2/applications/${app.applicationId}/verifications/?msisdn=${to}`);
    assert.equal(node.status, 200);
    assert.equal(node.body.verifications.length, 2);
  });

  it('msisdn may carry a leading + (URL-encoded), as send accepts it', async () => {
    const res = await status(`msisdn=%2B${to}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.verifications.length, 2);
    assert.equal(res.body.verifications[0].msisdn, to);
    const unencoded = await status(`msisdn=+${to}`);
    assert.equal(unencoded.body.verifications.length, 2, 'an unencoded + (read as a space) finds the number too');
  });

  it('an email destination works as msisdn', async () => {
    const { messageId } = await createEmailMessage(h, app.applicationId);
    const address = freshEmail();
    const sent = await h.request('POST', '/2fa/2/pin/email', { body: { applicationId: app.applicationId, messageId, to: address } });
    await deliveredPin(h, sent.body.pinId);
    const res = await status(`msisdn=${encodeURIComponent(address)}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.verifications.length, 1);
    assert.equal(res.body.verifications[0].msisdn, address);
    assert.equal(res.body.verifications[0].verified, false);
  });

  it('msisdn is required; verified and sent must be true or false', async () => {
    assertFieldError(await status(''), 'msisdn');
    assertFieldError(await status('verified=true'), 'msisdn');
    assertEnvelope(await status('msisdn='), 400, 'BAD_REQUEST');
    assertEnvelope(await status(`msisdn=${to}&verified=maybe`), 400, 'BAD_REQUEST');
    assertEnvelope(await status(`msisdn=${to}&sent=1`), 400, 'BAD_REQUEST');
    assertEnvelope(await status(`msisdn=${to}&verified=`), 400, 'BAD_REQUEST');
  });

  it('an unknown application is 404, and one of another account is the same 404', async () => {
    const missing = await status(`msisdn=${to}`, MISSING_ID);
    const foreign = await status(`msisdn=${to}`, app.applicationId, h.keys.b);
    assertEnvelope(missing, 404, 'NOT_FOUND');
    assertEnvelope(foreign, 404, 'NOT_FOUND');
    assert.equal(JSON.stringify(foreign.body).replaceAll(app.applicationId, '<id>'), JSON.stringify(missing.body).replaceAll(MISSING_ID, '<id>'));
  });

  it('verifying again (allowMultiplePinVerifications) keeps the first verifiedAt', async () => {
    h.clock.advance(5_000);
    const again = await h.request('POST', `/2fa/2/pin/${verifiedPinId}/verify`, { body: { pin: verifiedPin } });
    assert.equal(again.body.verified, true);
    const res = await status(`msisdn=${to}&verified=true`);
    assert.deepEqual(res.body, { verifications: [{ msisdn: to, verified: true, verifiedAt, sentAt: sentAt[1] }] });
  });

  it('the send-only key may read the status', async () => {
    const res = await status(`msisdn=${to}`, app.applicationId, h.keys.sendOnly);
    assert.equal(res.status, 200);
    assert.equal(res.body.verifications.length, 2);
  });
});
