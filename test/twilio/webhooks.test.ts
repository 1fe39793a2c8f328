// Verify Webhooks through Twilio's official Node SDK: the resource (create, list, fetch, update,
// delete), then the verification events delivered by the event worker to a real HTTP receiver on
// 127.0.0.1, each signature checked with the SDK's own twilio.validateRequest and the account's Auth
// Token from /api/v1/twilio/auth-token.
import assert from 'node:assert/strict';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import twilio from 'twilio';
import { createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { freshPhone } from '../support/http-assertions.js';
import { assertDocumentedFields, assertTwilioError } from './documented-fields.js';
import { RecordingClient, rejectsWith } from './sdk-support.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

interface Received { path: string; headers: http.IncomingHttpHeaders; body: string; params: Record<string, string> }

describe('Twilio Verify Webhooks through the official Node SDK', () => {
  let h: Harness;
  let client: twilio.Twilio;
  const recorder = new RecordingClient({ keepAlive: false });
  let base: string;
  let serviceSid: string;
  let receiver: WebhookReceiver;
  let hookBase: string;

  before(async () => {
    // http:// to the receiver on loopback needs the operator's opt-in to private addresses.
    h = await createHarness({ TWOFA_WEBHOOK_ALLOW_PRIVATE: 'true' });
    await h.node.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.node.app.server.address() as AddressInfo).port}`;
    const accountSid = (await h.request('GET', '/api/v1/me')).body.accountSid as string;
    client = twilio(accountSid, h.keys.a, { httpClient: recorder });
    client.verify.baseUrl = base;
    serviceSid = (await client.verify.v2.services.create({ friendlyName: 'Hooked' })).sid;
    receiver = await startWebhookReceiver();
    hookBase = receiver.base;
  });
  after(async () => {
    await h.close();
    await receiver.close();
  });
  beforeEach(() => { receiver.received.length = 0; });

  async function token(): Promise<string> {
    const answer = await h.request('GET', '/api/v1/twilio/auth-token');
    assert.equal(answer.status, 200);
    return answer.body.authToken as string;
  }

  /** Delivers the queued events and answers those the receiver got at `path`. */
  async function eventsAt(path: string): Promise<Received[]> {
    await h.node.events.drain();
    return receiver.received.filter((r) => r.path === path).map((r): Received => ({ ...r, params: Object.fromEntries(new URLSearchParams(r.body)) }));
  }

  it('creates, lists, fetches, updates and deletes a webhook with every documented field', async () => {
    const hooks = client.verify.v2.services(serviceSid).webhooks;
    const created = await hooks.create({ friendlyName: 'crm', eventTypes: ['verification.approved', 'factor.created'], webhookUrl: `${hookBase}/crud` });
    assert.match(created.sid, /^YW[0-9a-f]{32}$/);
    assert.equal(created.serviceSid, serviceSid);
    assert.deepEqual(created.eventTypes, ['verification.approved', 'factor.created']);
    assert.equal(created.status, 'enabled');
    assert.equal(created.version, 'v2');
    assert.equal(created.webhookMethod, 'POST');
    assert.equal(created.webhookUrl, `${hookBase}/crud`);
    assert.equal(created.url, `${base}/v2/Services/${serviceSid}/Webhooks/${created.sid}`);

    const updated = await hooks(created.sid).update({ eventTypes: ['*', 'verification.started'], status: 'disabled', versionParam: 'v1' });
    assert.deepEqual(updated.eventTypes, ['*']);
    assert.equal(updated.status, 'disabled');
    assert.equal(updated.version, 'v1');
    assert.equal(updated.friendlyName, 'crm', 'left out: kept');
    assert.equal((await hooks(created.sid).fetch()).status, 'disabled');
    assert.deepEqual((await hooks.list()).map((w) => w.sid), [created.sid]);

    assert.equal(await hooks(created.sid).remove(), true);
    await rejectsWith(hooks(created.sid).fetch(), 404, 20404);
    assert.deepEqual(await hooks.list(), []);
  });

  it('refuses unknown EventTypes with 60306, a private or non-https URL with 60200, and another account\'s service with 20404', async () => {
    const hooks = client.verify.v2.services(serviceSid).webhooks;
    await rejectsWith(hooks.create({ friendlyName: 'x', eventTypes: ['pin.sent'], webhookUrl: `${hookBase}/x` }), 400, 60306);
    const e = await rejectsWith(hooks.create({ friendlyName: 'x', eventTypes: ['*'], webhookUrl: 'http://hooks.example.com/x' }), 400, 60200);
    assert.equal(e.message, 'Invalid parameter: WebhookUrl');
    const other = twilio((await h.request('GET', '/api/v1/me', { key: h.keys.b })).body.accountSid, h.keys.b);
    other.verify.baseUrl = base;
    await rejectsWith(other.verify.v2.services(serviceSid).webhooks.list(), 404, 20404);
  });

  it('delivers verification.started, .approved and .canceled signed with the Auth Token, as validateRequest checks them', async () => {
    const hook = await client.verify.v2.services(serviceSid).webhooks.create({ friendlyName: 'all', eventTypes: ['*'], webhookUrl: `${hookBase}/all?tenant=7` });
    const authToken = await token();
    assert.match(authToken, /^[0-9a-f]{32}$/);
    const to = `+${freshPhone()}`;
    const started = await client.verify.v2.services(serviceSid).verifications.create({ to, channel: 'sms' });
    const code = await deliveredPin(h, started.sid.slice(2).toUpperCase());
    await client.verify.v2.services(serviceSid).verificationChecks.create({ to, code });
    const other = await client.verify.v2.services(serviceSid).verifications.create({ to: `+${freshPhone()}`, channel: 'sms' });
    await client.verify.v2.services(serviceSid).verifications(other.sid).update({ status: 'canceled' });

    // The worker delivers several events at once: they may arrive in any order, as Twilio's do.
    const events = await eventsAt('/all?tenant=7');
    assert.deepEqual(events.map((e) => `${e.params['type']} ${e.params['verification_sid']}`).sort(), [
      `verification.started ${started.sid}`, `verification.approved ${started.sid}`, `verification.started ${other.sid}`, `verification.canceled ${other.sid}`,
    ].sort());
    for (const e of events) {
      assert.equal(e.headers['content-type'], 'application/x-www-form-urlencoded');
      const signature = String(e.headers['x-twilio-signature']);
      assert.equal(twilio.validateRequest(authToken, signature, `${hookBase}/all?tenant=7`, e.params), true, `signature of ${e.params['type']}`);
      assert.equal(twilio.validateRequest('0'.repeat(32), signature, `${hookBase}/all?tenant=7`, e.params), false, 'another token does not verify');
      assert.equal(twilio.validateRequest(authToken, signature, `${hookBase}/other`, e.params), false, 'the URL is signed');
      assert.deepEqual(Object.keys(e.params), ['uuid', 'type', 'account_sid', 'service_sid', 'verification_sid', 'channel', 'to', 'status', 'date_created']);
      assert.equal(e.params['service_sid'], serviceSid);
      assert.equal(e.params['channel'], 'sms');
      assert.ok(!e.body.includes(to.slice(1)), 'the number is masked');
    }
    const statusOf: Record<string, string> = { 'verification.started': 'pending', 'verification.approved': 'approved', 'verification.canceled': 'canceled' };
    for (const e of events) assert.equal(e.params['status'], statusOf[e.params['type']!]);
    assert.equal(new Set(events.map((e) => e.params['uuid'])).size, 4);
    await client.verify.v2.services(serviceSid).webhooks(hook.sid).remove();
  });

  it('sends verification.approved when a Twilio-started PIN is verified through another dialect (Infobip, Prelude, Vonage)', async () => {
    const hook = await client.verify.v2.services(serviceSid).webhooks.create({ friendlyName: 'cross', eventTypes: ['verification.approved'], webhookUrl: `${hookBase}/cross` });
    const applicationId = serviceSid.slice(2).toUpperCase();
    const start = async (channel: 'sms' | 'call') => {
      const to = `+${freshPhone()}`;
      const started = await client.verify.v2.services(serviceSid).verifications.create({ to, channel });
      const pinId = started.sid.slice(2).toUpperCase();
      return { to, sid: started.sid, pinId, code: await deliveredPin(h, pinId) };
    };
    const byInfobip = await start('call');
    const verified = await h.request('POST', `/2fa/2/pin/${byInfobip.pinId}/verify`, { body: { pin: byInfobip.code } });
    assert.equal(verified.body.verified, true);
    assert.equal((await h.request('PUT', '/api/v1/prelude/settings', { body: { applicationId } })).status, 200);
    const byPrelude = await start('sms');
    const checked = await h.request('POST', '/v2/verification/check', { body: { target: { type: 'phone_number', value: byPrelude.to }, code: byPrelude.code } });
    assert.equal(checked.body.status, 'success');
    const byVonage = await start('sms');
    const requestId = byVonage.pinId.toLowerCase().replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    const completed = await h.request('POST', `/v2/verify/${requestId}`, { body: { code: byVonage.code }, vonageApplicationId: applicationId });
    assert.equal(completed.body.status, 'completed');

    const events = await eventsAt('/cross');
    assert.deepEqual(events.map((e) => `${e.params['verification_sid']} ${e.params['status']} ${e.params['channel']}`).sort(),
      [`${byInfobip.sid} approved call`, `${byPrelude.sid} approved sms`, `${byVonage.sid} approved sms`].sort());
    const authToken = await token();
    for (const e of events) assert.equal(twilio.validateRequest(authToken, String(e.headers['x-twilio-signature']), `${hookBase}/cross`, e.params), true);
    // The verification is approved once: a Twilio check of it now finds nothing.
    await rejectsWith(client.verify.v2.services(serviceSid).verificationChecks.create({ to: byInfobip.to, code: byInfobip.code }), 404, 20404);
    await client.verify.v2.services(serviceSid).webhooks(hook.sid).remove();
  });

  it('sends only the types a webhook names, nothing while it is disabled, and signs with a rotated token from then on', async () => {
    const hooks = client.verify.v2.services(serviceSid).webhooks;
    const hook = await hooks.create({ friendlyName: 'approvals', eventTypes: ['verification.approved'], webhookUrl: `${hookBase}/approvals` });
    const to = `+${freshPhone()}`;
    const started = await client.verify.v2.services(serviceSid).verifications.create({ to, channel: 'sms' });
    await client.verify.v2.services(serviceSid).verifications(started.sid).update({ status: 'approved' });
    const approvals = await eventsAt('/approvals');
    assert.deepEqual(approvals.map((e) => e.params['type']), ['verification.approved']);

    await hooks(hook.sid).update({ status: 'disabled' });
    const quiet = await client.verify.v2.services(serviceSid).verifications.create({ to: `+${freshPhone()}`, channel: 'sms' });
    await client.verify.v2.services(serviceSid).verifications(quiet.sid).update({ status: 'approved' });
    assert.equal((await eventsAt('/approvals')).length, 1, 'no event while disabled');

    const before = await token();
    const rotated = await h.request('POST', '/api/v1/twilio/auth-token');
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.authToken, before);
    assert.equal(await token(), rotated.body.authToken);
    await hooks(hook.sid).update({ status: 'enabled' });
    const next = await client.verify.v2.services(serviceSid).verifications.create({ to: `+${freshPhone()}`, channel: 'sms' });
    await client.verify.v2.services(serviceSid).verifications(next.sid).update({ status: 'approved' });
    const last = (await eventsAt('/approvals')).find((e) => e.params['verification_sid'] === next.sid)!;
    assert.ok(last, 'the approval after the rotation was sent');
    const signature = String(last.headers['x-twilio-signature']);
    assert.equal(twilio.validateRequest(rotated.body.authToken, signature, `${hookBase}/approvals`, last.params), true);
    assert.equal(twilio.validateRequest(before, signature, `${hookBase}/approvals`, last.params), false);
    await hooks(hook.sid).remove();
  });

  it('reports verification.max-attempts-reached on the check refused with 60202, and verification.expired once a verification outlives its 10 minutes', async () => {
    const hook = await client.verify.v2.services(serviceSid).webhooks.create({ friendlyName: 'ends', eventTypes: ['verification.expired', 'verification.max-attempts-reached'], webhookUrl: `${hookBase}/ends` });
    const to = `+${freshPhone()}`;
    const spent = await client.verify.v2.services(serviceSid).verifications.create({ to, channel: 'sms' });
    for (let i = 0; i < 5; i++) await client.verify.v2.services(serviceSid).verificationChecks.create({ verificationSid: spent.sid, code: '000000' });
    await rejectsWith(client.verify.v2.services(serviceSid).verificationChecks.create({ verificationSid: spent.sid, code: '000000' }), 429, 60202);
    const lapsed = await client.verify.v2.services(serviceSid).verifications.create({ to: `+${freshPhone()}`, channel: 'sms' });

    h.clock.advance(10 * 60_000 + 1000);
    await h.node.purge();
    await h.node.purge();
    const events = await eventsAt('/ends');
    assert.deepEqual(events.map((e) => `${e.params['type']} ${e.params['verification_sid']} ${e.params['status']}`).sort(), [
      `verification.max-attempts-reached ${spent.sid} max_attempts_reached`, `verification.expired ${lapsed.sid} expired`,
    ].sort());
    await rejectsWith(client.verify.v2.services(serviceSid).verifications(lapsed.sid).fetch(), 404, 20404);
    await client.verify.v2.services(serviceSid).webhooks(hook.sid).remove();
  });

  it('answered every request the SDK parsed with exactly the fields Twilio documents for it (run last)', () => {
    const hooks = recorder.answers.filter((a) => a.uri.includes('/Webhooks'));
    assert.ok(hooks.length >= 10, `${hooks.length} webhook answers recorded`);
    for (const answer of recorder.answers) {
      if (answer.statusCode >= 400) assertTwilioError(answer.body, answer.statusCode, (answer.body as { code: number }).code);
      else assertDocumentedFields(answer.method, answer.uri, answer.statusCode, answer.body);
    }
  });
});
