// TWOFA_SECURITY_PROFILE through inject(), on SQLite and (npm test runs test/http twice) PostgreSQL:
// under `strict` every application and template, also one stored before the switch, is used and shown
// with the floors (6-character PINs, at most 5 attempts, TTL at most 10 minutes, one verification per
// PIN, guards on); under the default `compatible` profile Infobip's values stand as they are.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateResourceId } from '../../src/domain/pin-generation.js';
import { authenticate } from '../../src/service/api-keys.js';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';

const LAX = { pinAttempts: 10, pinTimeToLive: '1h', allowMultiplePinVerifications: true };

function wrongPin(pin: string): string {
  return pin.split('').map((d) => String((Number(d) + 1) % 10)).join('');
}

async function sendPin(h: Harness, app: { applicationId: string; messageId: string }, to = '41793000001'): Promise<{ pinId: string; pin: string }> {
  const sent = await h.request('POST', '/2fa/2/pin', { body: { ...app, to } });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  return { pinId: sent.body.pinId as string, pin: await deliveredPin(h, sent.body.pinId as string) };
}

const verify = (h: Harness, pinId: string, pin: string) => h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin } });

describe('security profile strict', () => {
  let h: Harness;
  let app: { applicationId: string; messageId: string };
  before(async () => {
    h = await createHarness({ TWOFA_SECURITY_PROFILE: 'strict' });
    app = await createAppAndTemplate(h, { configuration: LAX, template: { pinLength: 4 } });
  });
  after(async () => {
    await h?.close();
  });

  it('echoes the floored configuration on POST, GET, list and PUT of applications; values within the floors stand', async () => {
    const created = await h.request('POST', '/2fa/2/applications', { body: { name: 'lax', configuration: LAX } });
    assert.equal(created.status, 200);
    const floored = { pinAttempts: 5, pinTimeToLive: '10m', allowMultiplePinVerifications: false };
    assert.deepEqual({ ...created.body.configuration, ...floored }, created.body.configuration);
    const id = created.body.applicationId as string;
    assert.deepEqual((await h.request('GET', `/2fa/2/applications/${id}`)).body.configuration, created.body.configuration);
    const listed = (await h.request('GET', '/2fa/2/applications')).body.find((a: { applicationId: string }) => a.applicationId === id);
    assert.deepEqual(listed.configuration, created.body.configuration);
    const put = await h.request('PUT', `/2fa/2/applications/${id}`, { body: { name: 'lax', configuration: { pinAttempts: 8, pinTimeToLive: '2d' } } });
    assert.equal(put.status, 200);
    assert.equal(put.body.configuration.pinAttempts, 5);
    assert.equal(put.body.configuration.pinTimeToLive, '10m');
    const tight = await h.request('POST', '/2fa/2/applications', { body: { name: 'tight', configuration: { pinAttempts: 3, pinTimeToLive: '5m' } } });
    assert.equal(tight.body.configuration.pinAttempts, 3);
    assert.equal(tight.body.configuration.pinTimeToLive, '5m');
  });

  it('floors an application stored before the switch', async () => {
    const principal = await authenticate(h.node.store, `App ${h.keys.a}`);
    assert.ok(principal);
    const id = generateResourceId();
    await h.node.store.insertApplication({
      id, accountId: principal.accountId, name: 'stored earlier', enabled: true, createdAt: h.clock.now, updatedAt: h.clock.now,
      configuration: { ...LAX, verifyPinLimit: '1/3s', sendPinPerApplicationLimit: '10000/1d', sendPinPerPhoneNumberLimit: '3/1d' },
    });
    const got = await h.request('GET', `/2fa/2/applications/${id}`);
    assert.equal(got.body.configuration.pinAttempts, 5);
    assert.equal(got.body.configuration.pinTimeToLive, '10m');
    assert.equal(got.body.configuration.allowMultiplePinVerifications, false);
  });

  it('echoes templates with PINs of at least 6 characters, and sends 6-digit PINs from a 4-digit template', async () => {
    const url = `/2fa/2/applications/${app.applicationId}/messages`;
    const got = await h.request('GET', `${url}/${app.messageId}`);
    assert.equal(got.body.pinLength, 6);
    assert.equal((await h.request('GET', url)).body.find((m: { messageId: string }) => m.messageId === app.messageId).pinLength, 6);
    const put = await h.request('PUT', `${url}/${app.messageId}`, { body: { pinLength: 5 } });
    assert.equal(put.status, 200);
    assert.equal(put.body.pinLength, 6);
    const longer = await h.request('POST', url, { body: { pinType: 'NUMERIC', pinLength: 8, messageText: 'Code {{pin}}' } });
    assert.equal(longer.body.pinLength, 8);
    const { pin } = await sendPin(h, app);
    assert.match(pin, /^[0-9]{6}$/);
  });

  it('locks a PIN after 5 wrong attempts although the application allows 10', async () => {
    const { pinId, pin } = await sendPin(h, app, '41793000002');
    const remaining: number[] = [];
    for (let i = 0; i < 5; i += 1) remaining.push((await verify(h, pinId, wrongPin(pin))).body.attemptsRemaining as number);
    assert.deepEqual(remaining, [4, 3, 2, 1, 0]);
    const after = await verify(h, pinId, pin);
    assert.equal(after.body.verified, false);
    assert.equal(after.body.pinError, 'NO_MORE_PIN_ATTEMPTS');
  });

  it('expires a PIN after 10 minutes although the application says 1h', async () => {
    const { pinId, pin } = await sendPin(h, app, '41793000003');
    h.clock.advance(10 * 60_000 + 1000);
    const late = await verify(h, pinId, pin);
    assert.equal(late.body.verified, false);
    assert.equal(late.body.pinError, 'TTL_EXPIRED');
  });

  it('refuses a second verification of a verified PIN although the application allows several', async () => {
    const { pinId, pin } = await sendPin(h, app, '41793000004');
    assert.equal((await verify(h, pinId, pin)).body.verified, true);
    const again = await verify(h, pinId, pin);
    assert.equal(again.body.verified, false);
    assert.equal(again.body.pinError, 'ALREADY_VERIFIED');
  });

  it('runs the anti-fraud guards although the application never turned them on, and shows them on', async () => {
    const security = await h.request('GET', `/api/v1/applications/${app.applicationId}/security`);
    assert.equal(security.body.settings.enabled, true);
    assert.equal(security.body.settings.refusePremiumNumbers, true);
    assert.equal(security.body.settings.conversionBreaker.enabled, true);
    assert.equal(security.body.bruteForce.attemptsPerPin, 5);
    assert.equal(security.body.bruteForce.pinSpace, 1_000_000);
    const off = await h.request('PUT', `/api/v1/applications/${app.applicationId}/security`, { body: { enabled: false, refusePremiumNumbers: false } });
    assert.equal(off.status, 200);
    assert.equal(off.body.settings.enabled, true);
    const premium = await h.request('POST', '/2fa/2/pin', { body: { ...app, to: '41900123456' } });
    assert.equal(premium.status, 403);
    assert.match(premium.body.requestError.serviceException.text, /premium-rate/);
  });
});

describe('security profile compatible (the default)', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => {
    await h?.close();
  });

  it('keeps Infobip\'s values: 4-digit PINs, 10 attempts, 15m, several verifications, guards off', async () => {
    const created = await h.request('POST', '/2fa/2/applications', { body: { name: 'defaults' } });
    assert.equal(created.body.configuration.pinAttempts, 10);
    assert.equal(created.body.configuration.pinTimeToLive, '15m');
    assert.equal(created.body.configuration.allowMultiplePinVerifications, true);
    const app = await createAppAndTemplate(h, { configuration: LAX, template: { pinLength: 4 } });
    assert.equal((await h.request('GET', `/2fa/2/applications/${app.applicationId}`)).body.configuration.pinAttempts, 10);
    assert.equal((await h.request('GET', `/2fa/2/applications/${app.applicationId}/messages/${app.messageId}`)).body.pinLength, 4);
    const { pinId, pin } = await sendPin(h, app);
    assert.match(pin, /^[0-9]{4}$/);
    for (let i = 0; i < 5; i += 1) await verify(h, pinId, wrongPin(pin));
    assert.equal((await verify(h, pinId, pin)).body.verified, true);
    assert.equal((await verify(h, pinId, pin)).body.verified, true);
    assert.equal((await h.request('GET', `/api/v1/applications/${app.applicationId}/security`)).body.settings.enabled, false);
    assert.equal((await h.request('POST', '/2fa/2/pin', { body: { ...app, to: '41900123456' } })).status, 200);
  });
});
