// The Twilio Verify dialect's wire conventions, through inject(): its error body under /v2 (and
// Infobip's everywhere else, unchanged), HTTP Basic with the account SID, form-encoded bodies.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseForm } from '../../src/http/routes/twilio/index.js';
import { createHarness, twilioBasic, type Harness } from '../support/harness.js';
import { assertTwilioError } from './documented-fields.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('Twilio Verify wire conventions', () => {
  let h: Harness;
  before(async () => { h = await createHarness(); });
  after(async () => { await h.close(); });

  it('shows the account SID, the same for every key of one account, on GET /api/v1/me', async () => {
    const a = (await h.request('GET', '/api/v1/me')).body.accountSid;
    assert.match(a, /^AC[0-9a-f]{32}$/);
    assert.equal((await h.request('GET', '/api/v1/me', { key: h.keys.sendOnly })).body.accountSid, a);
    const b = (await h.request('GET', '/api/v1/me', { key: h.keys.b })).body.accountSid;
    assert.match(b, /^AC[0-9a-f]{32}$/);
    assert.notEqual(b, a);
  });

  it('answers an unknown /v2 path with Twilio\'s 20404 body, and an unknown Infobip path with Infobip\'s envelope', async () => {
    const twilio = await h.request('GET', '/v2/NoSuchResource');
    assert.equal(twilio.status, 404);
    assertTwilioError(twilio.body, 404, 20404);
    const infobip = await h.request('GET', '/2fa/2/no-such-resource');
    assert.equal(infobip.status, 404);
    assert.equal(infobip.body.requestError.serviceException.messageId, 'NOT_FOUND');
  });

  it('authenticates /v2 with Basic <account SID>:<API key> only, answering 401 with 20003 otherwise', async () => {
    const basic = await twilioBasic(h.node.store, h.keys.a);
    assert.equal((await h.request('GET', '/v2/Services', { headers: { authorization: basic } })).status, 200);
    for (const authorization of [`App ${h.keys.a}`, `Bearer ${h.keys.a}`, await twilioBasic(h.node.store, 'no-such-key'), `Basic ${Buffer.from(`AC${'1'.repeat(32)}:${h.keys.a}`).toString('base64')}`]) {
      const refused = await h.request('GET', '/v2/Services', { headers: { authorization } });
      assert.equal(refused.status, 401, authorization);
      assertTwilioError(refused.body, 401, 20003);
      assert.match(String(refused.headers['www-authenticate']), /^Basic /);
    }
    // And the Infobip dialect takes no Basic credentials, still answering in its own envelope.
    const infobip = await h.request('GET', '/2fa/2/applications', { headers: { authorization: basic } });
    assert.equal(infobip.status, 401);
    assert.equal(infobip.body.requestError.serviceException.messageId, 'UNAUTHORIZED');
  });

  it('reads form bodies: repeated keys as arrays, every value a string', () => {
    assert.deepEqual(parseForm('FriendlyName=My+App&EventTypes=*&EventTypes=factor.created&RateLimits=%7B%22end_user_ip%22%3A%221.2.3.4%22%7D'), {
      FriendlyName: 'My App', EventTypes: ['*', 'factor.created'], RateLimits: '{"end_user_ip":"1.2.3.4"}',
    });
  });

  it('takes form bodies under /v2 only: Infobip\'s routes still refuse them with 415', async () => {
    const created = await h.request('POST', '/v2/Services', { rawBody: 'FriendlyName=Form+App&CodeLength=5&Push.IncludeDate=true&Passkeys.RelyingParty.Origins=https%3A%2F%2Fa.example,https%3A%2F%2Fb.example', headers: FORM });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.friendly_name, 'Form App');
    assert.equal(created.body.code_length, 5);
    assert.equal(created.body.push.include_date, true);
    assert.deepEqual(created.body.passkeys.relying_party.origins, ['https://a.example', 'https://b.example']);
    const infobip = await h.request('POST', '/2fa/2/applications', { rawBody: 'name=x', headers: FORM });
    assert.equal(infobip.status, 415);
    assert.equal(infobip.body.requestError.serviceException.messageId, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('takes an Idempotency-Key on /v2 too: the same request replays its answer, another request with the key is refused in Twilio\'s body', async () => {
    const headers = { ...FORM, 'idempotency-key': 'create-service-once' };
    const first = await h.request('POST', '/v2/Services', { rawBody: 'FriendlyName=Once', headers });
    assert.equal(first.status, 201);
    const again = await h.request('POST', '/v2/Services', { rawBody: 'FriendlyName=Once', headers });
    assert.equal(again.status, 201);
    assert.equal(again.body.sid, first.body.sid);
    const other = await h.request('POST', '/v2/Services', { rawBody: 'FriendlyName=Twice', headers });
    assert.equal(other.status, 422);
    assertTwilioError(other.body, 422, 60200);
  });

  it('answers malformed parameters with 60200 naming the parameter, and a JSON-valued parameter is taken as Twilio sends it', async () => {
    const bad = await h.request('GET', '/v2/Services/VAnot-a-sid');
    assert.equal(bad.status, 400);
    assertTwilioError(bad.body, 400, 60200);
    assert.equal(bad.body.message, 'Invalid parameter: Sid');
    const flag = await h.request('POST', '/v2/Services', { rawBody: 'FriendlyName=x&LookupEnabled=yes', headers: FORM });
    assertTwilioError(flag.body, 400, 60200);
    assert.equal(flag.body.message, 'Invalid parameter: LookupEnabled');
    const service = (await h.request('POST', '/v2/Services', { rawBody: 'FriendlyName=Limits', headers: FORM })).body.sid;
    const started = await h.request('POST', `/v2/Services/${service}/Verifications`, { rawBody: `To=%2B41793026727&Channel=sms&RateLimits=${encodeURIComponent('{"end_user_ip":"203.0.113.7"}')}`, headers: FORM });
    assert.equal(started.status, 201, JSON.stringify(started.body));
  });
});

describe('Twilio Verify and the failed-authentication throttle', () => {
  let h: Harness;
  before(async () => { h = await createHarness({ TWOFA_AUTH_FAILURE_LIMIT: '3/1m' }); });
  after(async () => { await h.close(); });

  it('counts wrong Basic credentials and answers the throttled request in Twilio\'s body (429, 20429, Retry-After)', async () => {
    const wrong = await twilioBasic(h.node.store, 'tfa_no-such-key-0123456789');
    for (let i = 0; i < 3; i++) assert.equal((await h.request('GET', '/v2/Services', { headers: { authorization: wrong } })).status, 401);
    const throttled = await h.request('GET', '/v2/Services', { headers: { authorization: wrong } });
    assert.equal(throttled.status, 429);
    assertTwilioError(throttled.body, 429, 20429);
    assert.ok(Number(throttled.headers['retry-after']) >= 1);
  });
});
