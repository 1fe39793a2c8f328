// Authentication, scopes, and the error envelope on everything that goes wrong before a service runs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../src/service/api-keys.js';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { MISSING_ID, assertEnvelope, forbid5xx, freshPhone } from '../support/http-assertions.js';

describe('authentication, scopes and errors', () => {
  let h: Harness;
  let app: { applicationId: string; messageId: string };
  before(async () => {
    h = forbid5xx(await createHarness());
    app = await createAppAndTemplate(h);
  });
  after(async () => { await h.close(); });

  const json = { 'content-type': 'application/json' };

  describe('authentication', () => {
    const protectedCalls: Array<[string, string, unknown?]> = [
      ['GET', '/2fa/2/applications'],
      ['POST', '/2fa/2/applications', { name: 'x' }],
      ['GET', `/2fa/2/applications/${MISSING_ID}`],
      ['GET', `/2fa/2/applications/${MISSING_ID}/messages`],
      ['POST', '/2fa/2/pin', { applicationId: 'a', messageId: 'm', to: '41793026727' }],
      ['POST', `/2fa/2/pin/${MISSING_ID}/verify`, { pin: '1234' }],
      ['POST', `/2fa/2/pin/${MISSING_ID}/resend`, {}],
      ['GET', `/2fa/2/applications/${MISSING_ID}/verifications?msisdn=41793026727`],
      ['GET', '/api/v1/email-templates'],
      ['GET', '/api/v1/inbox'],
    ];

    it('no Authorization header is a 401 UNAUTHORIZED envelope on every protected endpoint', async () => {
      for (const [method, url, body] of protectedCalls) {
        assertEnvelope(await h.request(method, url, { key: null, ...(body !== undefined ? { body } : {}) }), 401, 'UNAUTHORIZED');
      }
    });

    it('an unknown key, a malformed header or an unsupported scheme is a 401', async () => {
      for (const authorization of [
        `App ${h.keys.a}x`, 'App tfa_doesnotexist', 'App', 'App ', h.keys.a, `Token ${h.keys.a}`,
        `Basic ${Buffer.from('user:password').toString('base64')}`, `Basic ${Buffer.from(`${h.keys.a}:`).toString('base64')}`,
        'IBSSO 2f9b4d31-2d0d-49a8-85f0-9b862bdca394', `App ${h.keys.a} extra`, '',
      ]) {
        assertEnvelope(await h.request('GET', '/2fa/2/applications', { key: null, headers: { authorization } }), 401, 'UNAUTHORIZED');
      }
    });

    it('accepts App (any case) and Bearer', async () => {
      for (const authorization of [`App ${h.keys.a}`, `app ${h.keys.a}`, `APP ${h.keys.a}`, `Bearer ${h.keys.a}`, `bearer ${h.keys.a}`]) {
        const res = await h.request('GET', '/2fa/2/applications', { key: null, headers: { authorization } });
        assert.equal(res.status, 200, `${authorization.split(' ')[0]}: ${JSON.stringify(res.body)}`);
      }
    });

    it('a revoked key is a 401', async () => {
      const created = await createApiKey(h.node.store, { accountName: 'account-a', now: h.clock.now });
      assert.equal((await h.request('GET', '/2fa/2/applications', { key: created.key })).status, 200);
      assert.equal(await h.node.store.revokeApiKey(created.record.id, h.clock.now), true);
      assertEnvelope(await h.request('GET', '/2fa/2/applications', { key: created.key }), 401, 'UNAUTHORIZED');
      assertEnvelope(await h.request('POST', '/2fa/2/pin', { key: created.key, body: { ...app, to: freshPhone() } }), 401, 'UNAUTHORIZED');
    });

    it('authentication comes first: an unauthenticated malformed, oversized or mistyped request is a 401', async () => {
      assertEnvelope(await h.request('POST', '/2fa/2/applications', { key: null, rawBody: '{"name":', headers: json }), 401, 'UNAUTHORIZED');
      assertEnvelope(await h.request('POST', '/2fa/2/applications', { key: null, rawBody: JSON.stringify({ name: 'x'.repeat(70_000) }), headers: json }), 401, 'UNAUTHORIZED');
      assertEnvelope(await h.request('POST', '/2fa/2/applications', { key: null, rawBody: 'name=x', headers: { 'content-type': 'text/plain' } }), 401, 'UNAUTHORIZED');
      assertEnvelope(await h.request('POST', `/2fa/2/pin/${MISSING_ID}/verify`, { key: 'nope', body: { pin: 5 } }), 401, 'UNAUTHORIZED');
    });
  });

  describe('scopes', () => {
    it('the send-only key is refused with 403 FORBIDDEN on every management endpoint', async () => {
      const key = h.keys.sendOnly;
      const { applicationId, messageId } = app;
      const calls: Array<[string, string, unknown?]> = [
        ['GET', '/2fa/2/applications'],
        ['POST', '/2fa/2/applications', { name: 'x' }],
        ['GET', `/2fa/2/applications/${applicationId}`],
        ['PUT', `/2fa/2/applications/${applicationId}`, { name: 'x' }],
        ['GET', `/2fa/2/applications/${applicationId}/messages`],
        ['POST', `/2fa/2/applications/${applicationId}/messages`, { pinType: 'NUMERIC', messageText: '{{pin}}' }],
        ['GET', `/2fa/2/applications/${applicationId}/messages/${messageId}`],
        ['PUT', `/2fa/2/applications/${applicationId}/messages/${messageId}`, {}],
        ['POST', `/2fa/2/applications/${applicationId}/email/messages`, { emailTemplateId: 1 }],
        ['PUT', `/2fa/2/applications/${applicationId}/email/messages/${messageId}`, {}],
        ['GET', '/api/v1/email-templates'],
        ['POST', '/api/v1/email-templates', { name: 'n', subject: 's', text: '{{pin}}' }],
        ['GET', '/api/v1/email-templates/1'],
        ['PUT', '/api/v1/email-templates/1', { name: 'n', subject: 's', text: '{{pin}}' }],
        ['DELETE', '/api/v1/email-templates/1'],
        ['GET', '/api/v1/inbox'],
      ];
      for (const [method, url, body] of calls) {
        assertEnvelope(await h.request(method, url, { key, ...(body !== undefined ? { body } : {}) }), 403, 'FORBIDDEN');
      }
      const unchanged = await h.request('GET', `/2fa/2/applications/${applicationId}`);
      assert.equal(unchanged.body.name, 'test app');
    });

    it('the send-only key may send, resend, verify and read the verification status', async () => {
      const key = h.keys.sendOnly;
      const to = freshPhone();
      const sent = await h.request('POST', '/2fa/2/pin', { key, body: { ...app, to } });
      assert.equal(sent.status, 200);
      assert.equal((await h.request('POST', '/2fa/2/pin/voice', { key, body: { ...app, to: freshPhone() } })).status, 200);
      assert.equal((await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { key, body: {} })).status, 200);
      assert.equal((await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend/voice`, { key })).status, 200);
      const pin = await deliveredPin(h, sent.body.pinId);
      const verified = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { key, body: { pin } });
      assert.equal(verified.body.verified, true);
      const status = await h.request('GET', `/2fa/2/applications/${app.applicationId}/verifications?msisdn=${to}`, { key });
      assert.equal(status.status, 200);
      assert.equal(status.body.verifications[0].verified, true);
    });

    it('the send-only key sees its own account only', async () => {
      const ofB = await createAppAndTemplate(h, { key: h.keys.b });
      const res = await h.request('POST', '/2fa/2/pin', { key: h.keys.sendOnly, body: { ...ofB, to: freshPhone() } });
      assertEnvelope(res, 400, 'BAD_REQUEST');
    });
  });

  describe('request bodies', () => {
    it('malformed JSON is a 400 BAD_REQUEST envelope', async () => {
      for (const rawBody of ['{"name":', '{name: "x"}', "{'name':'x'}", '{"name":"x"}}', 'undefined']) {
        assertEnvelope(await h.request('POST', '/2fa/2/applications', { rawBody, headers: json }), 400, 'BAD_REQUEST');
      }
    });

    it('__proto__ and constructor.prototype keys are refused as a 400', async () => {
      for (const rawBody of ['{"__proto__":{"name":"evil"}}', '{"name":"x","constructor":{"prototype":{"polluted":true}}}', '{"name":"x","configuration":{"__proto__":{"pinAttempts":1}}}']) {
        assertEnvelope(await h.request('POST', '/2fa/2/applications', { rawBody, headers: json }), 400, 'BAD_REQUEST');
      }
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    });

    it('JSON that is not an object is a 400', async () => {
      for (const rawBody of ['null', '[]', '"x"', '42', 'true']) {
        assertEnvelope(await h.request('POST', '/2fa/2/applications', { rawBody, headers: json }), 400, 'BAD_REQUEST');
      }
    });

    it('a body over 64 KiB is a 413 envelope', async () => {
      const rawBody = JSON.stringify({ name: 'x'.repeat(65 * 1024) });
      const res = await h.request('POST', '/2fa/2/applications', { rawBody, headers: json });
      assertEnvelope(res, 413, 'PAYLOAD_TOO_LARGE');
      const verify = await h.request('POST', `/2fa/2/pin/${MISSING_ID}/verify`, { rawBody: JSON.stringify({ pin: '1'.repeat(70_000) }), headers: json });
      assertEnvelope(verify, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('a body just under the limit is read', async () => {
      const res = await h.request('POST', '/2fa/2/applications', { rawBody: JSON.stringify({ name: 'big', pad: 'x'.repeat(60 * 1024) }), headers: json });
      assert.equal(res.status, 200);
    });

    it('a content type other than JSON is a 415 envelope', async () => {
      for (const contentType of ['application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x', 'application/octet-stream']) {
        const res = await h.request('POST', '/2fa/2/applications', { rawBody: '{"name":"x"}', headers: { 'content-type': contentType } });
        assertEnvelope(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
      }
    });

    // Fastify registers a text/plain parser by default and src/app.ts only replaces the JSON one, so a
    // text/plain body reaches validation as a string: 400 "[body : must be object]" instead of 415.
    it('a text/plain body is a 415 envelope', async () => {
      for (const contentType of ['text/plain', 'text/plain; charset=utf-8']) {
        const res = await h.request('POST', '/2fa/2/applications', { rawBody: '{"name":"x"}', headers: { 'content-type': contentType } });
        assertEnvelope(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
      }
    });

    it('JSON with a charset parameter is accepted', async () => {
      const res = await h.request('POST', '/2fa/2/applications', { rawBody: '{"name":"charset"}', headers: { 'content-type': 'application/json; charset=utf-8' } });
      assert.equal(res.status, 200);
    });

    it('null members are treated as absent', async () => {
      const created = await h.request('POST', '/2fa/2/applications', { body: { name: 'nulls', enabled: null, configuration: { pinAttempts: null, pinTimeToLive: '5m', verifyPinLimit: null } } });
      assert.equal(created.status, 200);
      assert.equal(created.body.enabled, true);
      assert.deepEqual(created.body.configuration, {
        pinAttempts: 10, allowMultiplePinVerifications: true, pinTimeToLive: '5m', verifyPinLimit: '1/3s',
        sendPinPerApplicationLimit: '10000/1d', sendPinPerPhoneNumberLimit: '3/1d',
      });
      const nullConfig = await h.request('POST', '/2fa/2/applications', { body: { name: 'null config', configuration: null } });
      assert.equal(nullConfig.status, 200);
      assert.equal(nullConfig.body.configuration.pinAttempts, 10);
      const kept = await h.request('PUT', `/2fa/2/applications/${created.body.applicationId}`, { body: { name: 'nulls', enabled: null, configuration: { pinTimeToLive: null } } });
      assert.equal(kept.status, 200);
      assert.deepEqual(kept.body, created.body);
      const template = await h.request('POST', `/2fa/2/applications/${created.body.applicationId}/messages`, { body: { pinType: 'NUMERIC', messageText: '{{pin}}', senderId: null, regional: null, speechRate: null } });
      assert.equal(template.status, 200);
      assert.ok(!('senderId' in template.body) && !('regional' in template.body) && !('speechRate' in template.body));
      const sent = await h.request('POST', '/2fa/2/pin', { body: { ...app, to: freshPhone(), from: null, placeholders: null, trackDelivery: null } });
      assert.equal(sent.status, 200);
      assert.ok(!('externalMessageId' in sent.body));
    });

    it('a null required field is a missing one', async () => {
      const res = await h.request('POST', '/2fa/2/applications', { body: { name: null } });
      assertEnvelope(res, 400, 'BAD_REQUEST');
      assert.ok(res.body.requestError.serviceException.validationErrors.name);
    });
  });

  describe('routes and headers', () => {
    it('an unknown route is a 404 NOT_FOUND envelope, with or without a key', async () => {
      for (const [method, url] of [['GET', '/2fa/2/nope'], ['GET', '/2fa/3/applications'], ['DELETE', '/2fa/2/applications'], ['PATCH', `/2fa/2/applications/${MISSING_ID}`], ['GET', '/'], ['POST', '/2fa/2/pin/a/b/c/d']] as const) {
        assertEnvelope(await h.request(method, url), 404, 'NOT_FOUND');
        assertEnvelope(await h.request(method, url, { key: null }), 404, 'NOT_FOUND');
      }
    });

    it('every answer carries an x-request-id; a sane one given by the client is echoed', async () => {
      const ok = await h.request('GET', '/2fa/2/applications');
      assert.equal(typeof ok.headers['x-request-id'], 'string');
      assert.ok((ok.headers['x-request-id'] as string).length > 0);
      const two = await h.request('GET', '/2fa/2/applications');
      assert.notEqual(two.headers['x-request-id'], ok.headers['x-request-id']);
      for (const res of [
        await h.request('GET', '/2fa/2/applications', { key: null }),
        await h.request('GET', '/2fa/2/applications', { key: h.keys.sendOnly }),
        await h.request('GET', '/2fa/2/nope'),
        await h.request('POST', '/2fa/2/applications', { rawBody: '{', headers: json }),
        await h.request('POST', '/2fa/2/applications', { body: {} }),
      ]) {
        assert.equal(typeof res.headers['x-request-id'], 'string', `status ${res.status}`);
      }
      const echoed = await h.request('GET', '/2fa/2/applications', { headers: { 'x-request-id': 'trace-123' } });
      assert.equal(echoed.headers['x-request-id'], 'trace-123');
      const unsafe = await h.request('GET', '/2fa/2/applications', { headers: { 'x-request-id': 'bad id\twith spaces' } });
      assert.notEqual(unsafe.headers['x-request-id'], 'bad id\twith spaces');
    });

    it('answers are JSON', async () => {
      const res = await h.request('GET', '/2fa/2/applications');
      assert.match(String(res.headers['content-type']), /^application\/json/);
    });
  });

  it('nothing in this suite was logged as an unhandled error', () => {
    const failures = h.logs.filter((line) => line.includes('unhandled error') || /"level":(50|60)/.test(line));
    assert.deepEqual(failures, []);
  });
});
