// The conformance check that the harness runs on every answer (response-conformance.ts) really
// rejects what the document does not declare; and a sweep through every operation with the refusals
// any client can provoke (no key, wrong scope, over-long ids, non-JSON, too large, unknown ids), so
// that each error status the service can answer is one the document declares, with the envelope.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dialectOfPath } from '../../src/http/error-envelope.js';
import { SCOPE_PIN_SEND } from '../../src/service/api-keys.js';
import { createHarness, type Harness } from '../support/harness.js';
import { assertResponseConforms } from './response-conformance.js';

interface Document { paths: Record<string, Record<string, { operationId: string }>> }

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };
const UNKNOWN_ID = '0123456789ABCDEF0123456789ABCDEF';

describe('response conformance check', () => {
  let h: Harness;
  before(async () => { h = await createHarness(); });
  after(async () => { await h.close(); });

  const conforms = (response: { method: string; url: string; status: number; headers?: Record<string, unknown>; body: string }) =>
    assertResponseConforms(h.node.app, { headers: JSON_TYPE, ...response });

  it('accepts what the document declares', async () => {
    await conforms({ method: 'GET', url: '/healthz', status: 200, body: '{"status":"ok"}' });
    await conforms({ method: 'HEAD', url: '/healthz', status: 200, body: '' });
    await conforms({ method: 'GET', url: '/2fa/2/applications/', status: 401, body: '{"requestError":{"serviceException":{"messageId":"UNAUTHORIZED","text":"x"}}}' });
    await conforms({ method: 'DELETE', url: '/api/v1/email-templates/7', status: 204, headers: {}, body: '' });
    await conforms({ method: 'GET', url: '/metrics', status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }, body: '# HELP x\n' });
    await conforms({ method: 'GET', url: '/nowhere', status: 404, body: '{"requestError":{"serviceException":{"messageId":"NOT_FOUND","text":"x"}}}' });
  });

  it('rejects a status the operation does not declare', async () => {
    await assert.rejects(conforms({ method: 'GET', url: '/healthz', status: 418, body: '{"status":"ok"}' }), /GET \/healthz \(healthz\) answered 418, which it does not declare/);
  });

  it('rejects a body that does not match the declared schema, naming the route, status and error', async () => {
    await assert.rejects(
      conforms({ method: 'POST', url: `/2fa/2/pin/${UNKNOWN_ID}/verify`, status: 200, body: `{"pinId":"${UNKNOWN_ID}","verified":"yes","attemptsRemaining":1}` }),
      (err: Error) => /POST \/2fa\/2\/pin\/\{pinId\}\/verify \(verify-2fa-phone-number\) answered 200/.test(err.message) && /msisdn/.test(err.message) && /\/verified must be boolean/.test(err.message),
    );
    await assert.rejects(conforms({ method: 'GET', url: '/2fa/2/applications', status: 401, body: '{"error":"nope"}' }), /requestError/);
  });

  it('rejects an undeclared content type, a missing body and an unexpected one', async () => {
    await assert.rejects(conforms({ method: 'GET', url: '/healthz', status: 200, headers: { 'content-type': 'text/html' }, body: '<p>ok</p>' }), /content type "text\/html"/);
    await assert.rejects(conforms({ method: 'GET', url: '/healthz', status: 200, body: '' }), /empty body/);
    await assert.rejects(conforms({ method: 'DELETE', url: '/api/v1/email-templates/7', status: 204, body: '{}' }), /declares no content/);
  });

  it('rejects anything but the 404 envelope where no route matches', async () => {
    await assert.rejects(conforms({ method: 'GET', url: '/nowhere', status: 200, body: '{}' }), /no route matches/);
    await assert.rejects(conforms({ method: 'GET', url: '/nowhere', status: 404, body: '{"message":"Not Found"}' }), /not the error envelope/);
  });
});

describe('every operation, every refusal a client can provoke, is declared', () => {
  let h: Harness;
  let operations: Array<{ method: string; template: string; operationId: string }>;
  /** The scope each route demands ("GET /a/{id}" -> scope), as the routes register themselves. */
  const scopes = new Map<string, string | undefined>();
  before(async () => {
    // A small body limit, so that "too large" is cheap to send. Every operation gets an unknown key
    // from one address: the failed-authentication throttle (its 429 is declared too) is set out of the way.
    h = await createHarness({ TWOFA_BODY_LIMIT: '1024', TWOFA_AUTH_FAILURE_LIMIT: '100000/1m' });
    h.node.app.addHook('onRoute', (route) => {
      for (const method of ([] as string[]).concat(route.method)) scopes.set(`${method} ${route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`, route.config?.scope);
    });
    const doc = (await h.request('GET', '/openapi.json', { key: null })).body as Document;
    operations = Object.entries(doc.paths).flatMap(([template, item]) =>
      Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), template, operationId: op.operationId })));
    assert.ok(secured().length >= 20, 'the routes\' scopes were recorded');
  });
  after(async () => { await h.close(); });

  const secured = () => operations.filter((o) => scopes.get(`${o.method} ${o.template}`) !== undefined);
  const withBody = () => operations.filter((o) => o.method === 'POST' || o.method === 'PUT');
  const url = (template: string, value: string) => template.replace(/\{[^}]+\}/g, value);

  // Each h.request below is checked against the document by the harness: a status the operation
  // does not declare, or a body that is not its declared schema, fails the test right there.
  it('no key, an unknown key, a key without the scope', async () => {
    for (const o of secured()) {
      const target = url(o.template, UNKNOWN_ID);
      assert.equal((await h.request(o.method, target, { key: null })).status, 401, `${o.operationId} without a key`);
      assert.equal((await h.request(o.method, target, { key: 'no-such-key-0123456789' })).status, 401, `${o.operationId} with an unknown key`);
      const sendOnly = await h.request(o.method, target, { key: h.keys.sendOnly, ...(o.method === 'GET' ? {} : { body: {} }) });
      const pinScope = scopes.get(`${o.method} ${o.template}`) === SCOPE_PIN_SEND;
      if (pinScope) assert.notEqual(sendOnly.status, 403, `${o.operationId} with a send-only key`);
      else assert.equal(sendOnly.status, 403, `${o.operationId} with a send-only key`);
    }
  });

  it('path parameters too long or malformed', async () => {
    for (const o of secured().filter((x) => x.template.includes('{'))) {
      const response = await h.request(o.method, url(o.template, 'A'.repeat(65)), o.method === 'GET' ? {} : { body: {} });
      // Vonage answers an invalid parameter 422 Invalid params, every other dialect 400.
      assert.equal(response.status, dialectOfPath(o.template) === 'vonage' ? 422 : 400, `${o.operationId} with a 65-character id: ${JSON.stringify(response.body)}`);
    }
  });

  it('bodies that are not JSON, not parseable or too large', async () => {
    for (const o of withBody()) {
      const target = url(o.template, UNKNOWN_ID);
      assert.equal((await h.request(o.method, target, { rawBody: 'hello', headers: { 'content-type': 'text/plain' } })).status, 415, `${o.operationId} text/plain`);
      assert.equal((await h.request(o.method, target, { rawBody: '{"name":', headers: { 'content-type': 'application/json' } })).status, 400, `${o.operationId} broken JSON`);
      assert.equal((await h.request(o.method, target, { body: { name: 'x'.repeat(2000) } })).status, 413, `${o.operationId} too large`);
    }
    // DELETE parses a body too, when one is sent.
    assert.equal((await h.request('DELETE', '/api/v1/email-templates/1', { rawBody: 'hello', headers: { 'content-type': 'text/plain' } })).status, 415);
  });

  it('unknown ids', async () => {
    const appId = UNKNOWN_ID;
    const cases: Array<[string, string, unknown?]> = [
      ['GET', `/2fa/2/applications/${appId}`],
      ['PUT', `/2fa/2/applications/${appId}`, { name: 'x' }],
      ['GET', `/2fa/2/applications/${appId}/messages`],
      ['GET', `/2fa/2/applications/${appId}/messages/${appId}`],
      ['POST', `/2fa/2/applications/${appId}/messages`, { pinType: 'NUMERIC', messageText: 'Code {{pin}}' }],
      ['GET', `/2fa/2/applications/${appId}/verifications?msisdn=41793026727`],
      ['POST', `/2fa/2/pin/${appId}/resend`, {}],
      ['POST', `/2fa/2/pin/${appId}/resend/voice`, {}],
      ['POST', `/2fa/2/pin/${appId}/resend/email`, {}],
      ['POST', `/2fa/2/pin/${appId}/verify`, { pin: '1234' }],
      ['GET', '/api/v1/email-templates/999'],
      ['PUT', '/api/v1/email-templates/999', { name: 'x', subject: 'y', text: '{{pin}}' }],
      ['DELETE', '/api/v1/email-templates/999'],
    ];
    for (const [method, target, body] of cases) {
      const response = await h.request(method, target, body === undefined ? {} : { body });
      assert.equal(response.status, 404, `${method} ${target}: ${JSON.stringify(response.body)}`);
    }
  });

  it('HEAD of every public GET', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) assert.equal((await h.request('HEAD', path, { key: null })).status, 200);
  });
});
