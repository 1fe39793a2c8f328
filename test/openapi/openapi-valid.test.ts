// The OpenAPI 3.1 document at /openapi.json: valid by a real validator (@readme/openapi-parser),
// complete (every route of the app, Infobip's 18 operations under Infobip's operationIds), and honest
// about authentication (security on exactly the operations that demand a key).
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { validate } from '@readme/openapi-parser';
import type { RouteOptions } from 'fastify';
import { dialectOfPath } from '../../src/http/error-envelope.js';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';

/** Infobip's operationIds, methods and paths, as in Infobip's own OpenAPI document of the 2FA API. */
const INFOBIP_OPERATIONS: Record<string, string> = {
  'get-2fa-applications': 'GET /2fa/2/applications',
  'create-2fa-application': 'POST /2fa/2/applications',
  'get-2fa-application': 'GET /2fa/2/applications/{appId}',
  'update-2fa-application': 'PUT /2fa/2/applications/{appId}',
  'get-2fa-message-templates': 'GET /2fa/2/applications/{appId}/messages',
  'create-2fa-message-template': 'POST /2fa/2/applications/{appId}/messages',
  'get-2fa-message-template': 'GET /2fa/2/applications/{appId}/messages/{msgId}',
  'update-2fa-message-template': 'PUT /2fa/2/applications/{appId}/messages/{msgId}',
  'create-2fa-email-message-template': 'POST /2fa/2/applications/{appId}/email/messages',
  'update-2fa-email-message-template': 'PUT /2fa/2/applications/{appId}/email/messages/{msgId}',
  'send-2fa-pin-code-over-sms': 'POST /2fa/2/pin',
  'resend-2fa-pin-code-over-sms': 'POST /2fa/2/pin/{pinId}/resend',
  'send-2fa-pin-code-over-voice': 'POST /2fa/2/pin/voice',
  'resend-2fa-pin-code-over-voice': 'POST /2fa/2/pin/{pinId}/resend/voice',
  'send-2fa-pin-code-over-email': 'POST /2fa/2/pin/email',
  'resend-2fa-pin-code-over-email': 'POST /2fa/2/pin/{pinId}/resend/email',
  'verify-2fa-phone-number': 'POST /2fa/2/pin/{pinId}/verify',
  'get-2fa-verification-status': 'GET /2fa/2/applications/{appId}/verifications',
};

/**
 * The only operations without an API key. A new one must be added here on purpose: the providers'
 * delivery callbacks authenticate by the provider's own signature or token instead.
 */
const PUBLIC_OPERATIONS = ['GET /healthz', 'GET /readyz', 'GET /metrics', 'GET /api/v1/callbacks/{provider}', 'POST /api/v1/callbacks/{provider}'];

interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { description?: string; content?: Record<string, unknown> }>;
}
interface Document {
  openapi: string;
  security?: unknown;
  components?: { securitySchemes?: Record<string, unknown> };
  paths: Record<string, Record<string, Operation>>;
}

/** "METHOD /path/{param}" of every operation in the document. */
function operationsOf(doc: Document): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) operations.set(`${method.toUpperCase()} ${path}`, operation);
  }
  return operations;
}

/** Fastify's `/a/:id` as an OpenAPI template `/a/{id}`. */
const asTemplate = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('OpenAPI document', () => {
  let h: Harness;
  let doc: Document;
  const routes: RouteOptions[] = [];

  before(async () => {
    h = await createHarness();
    // Routes are registered while the app boots: record each one (the document must list them all).
    h.node.app.addHook('onRoute', (route) => { routes.push(route as RouteOptions); });
    await h.node.app.ready();
    const response = await h.request('GET', '/openapi.json', { key: null });
    assert.equal(response.status, 200);
    doc = response.body as Document;
  });
  after(async () => { await h.close(); });

  it('is valid OpenAPI 3.1', async () => {
    assert.equal(doc.openapi, '3.1.0');
    const result = await validate(structuredClone(doc) as never);
    assert.ok(result.valid, `the validator rejects /openapi.json:\n${result.valid ? '' : result.errors.map((e) => e.message).join('\n\n')}`);
    assert.deepEqual(result.warnings, []);
  });

  it('is checked by a validator that does reject invalid documents', async () => {
    const broken = structuredClone(doc);
    delete broken.paths['/healthz']!['get']!.responses['200']!.description;
    (broken.paths['/metrics']!['get'] as unknown as Record<string, unknown>)['produces'] = ['text/plain'];
    const result = await validate(broken as never);
    assert.equal(result.valid, false);
  });

  it('lists every route of the app (but the document itself, /docs and /console), and nothing else', () => {
    const served = new Set<string>();
    for (const route of routes) {
      for (const method of ([] as string[]).concat(route.method)) {
        // HEAD is Fastify's automatic twin of each GET; the document lists the GET.
        // The console (/console) is the web app's pages and files, not API operations.
        if (method === 'HEAD' || route.url === '/openapi.json' || route.url === '/docs' || route.url.startsWith('/docs/') || route.url === '/console' || route.url.startsWith('/console/')) continue;
        served.add(`${method} ${asTemplate(route.url)}`);
      }
    }
    assert.ok(served.size >= 27, `only ${served.size} routes were recorded`);
    assert.deepEqual([...operationsOf(doc).keys()].sort(), [...served].sort());
  });

  it('has Infobip\'s 18 operations under Infobip\'s operationIds, methods and paths', () => {
    const byId = new Map([...operationsOf(doc)].map(([where, op]) => [op.operationId, where]));
    for (const [operationId, where] of Object.entries(INFOBIP_OPERATIONS)) {
      assert.equal(byId.get(operationId), where, `operationId ${operationId}`);
    }
    // twofa's own operations beside them (WhatsApp, Telegram) are tagged as extensions.
    const infobipPaths = [...operationsOf(doc)].filter(([where, op]) => where.split(' ')[1]!.startsWith('/2fa/2/') && !(op as { tags?: string[] }).tags?.includes('twofa extensions')).map(([where]) => where);
    assert.equal(infobipPaths.length, 18, `operations under /2fa/2: ${infobipPaths.join(', ')}`);
  });

  it('gives every operation a unique operationId', () => {
    const ids = [...operationsOf(doc).entries()].map(([where, op]) => {
      assert.ok(op.operationId, `${where} has no operationId`);
      return op.operationId;
    });
    assert.equal(new Set(ids).size, ids.length, `duplicated: ${ids.filter((id, i) => ids.indexOf(id) !== i).join(', ')}`);
  });

  it('declares security on exactly the operations that demand an API key', async () => {
    assert.equal(doc.security, undefined, 'no document-wide security: the public operations would inherit it');
    assert.deepEqual(Object.keys(doc.components?.securitySchemes ?? {}).sort(), ['APIKeyHeader', 'BearerKey', 'TwilioBasic', 'VonageBasic', 'VonageJwt']);
    for (const [where, operation] of operationsOf(doc)) {
      if (PUBLIC_OPERATIONS.includes(where)) {
        assert.equal(operation.security, undefined, `${where} is public`);
        continue;
      }
      assert.ok(operation.security, `${where} is public, but not in PUBLIC_OPERATIONS: needs it a key?`);
      // The Twilio dialect (/v2) takes HTTP Basic only, as Twilio does; Prelude's (/v2/verification) a
      // Bearer token only, as Prelude does; Vonage's (/v2/verify) a JWT or Basic, as Vonage does; every
      // other operation both key schemes.
      const path = where.split(' ')[1]!;
      const schemes = { prelude: [{ BearerKey: [] }], twilio: [{ TwilioBasic: [] }], vonage: [{ VonageJwt: [] }, { VonageBasic: [] }], infobip: [{ APIKeyHeader: [] }, { BearerKey: [] }] }[dialectOfPath(path)];
      assert.deepEqual(operation.security, schemes, `${where} accepts its dialect's schemes`);
      for (const status of ['401', '403', '500']) assert.ok(operation.responses[status], `${where} declares ${status}`);
    }
    // What the document says is what the service does: without a key, exactly the secured operations answer 401.
    for (const [where, operation] of operationsOf(doc)) {
      const [method, template] = where.split(' ') as [string, string];
      const url = template.replace(/\{[^}]+\}/g, '1');
      const response = await h.request(method, url, { key: null, ...(method === 'POST' || method === 'PUT' ? { body: {} } : {}) });
      if (operation.security) assert.equal(response.status, 401, `${where} without a key`);
      else assert.notEqual(response.status, 401, `${where} without a key`);
    }
  });

  it('describes every response, and declares what the JSON body parser can answer', () => {
    for (const [where, operation] of operationsOf(doc)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        assert.ok(response.description && response.description !== 'Default Response', `${where} ${status} has no description of its own`);
      }
      if (/^(POST|PUT|PATCH|DELETE) /.test(where)) {
        for (const status of ['400', '413', '415']) assert.ok(operation.responses[status], `${where} declares ${status}`);
      }
    }
  });

  it('marks a request body optional exactly where the service accepts none', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(h);
    const emailTemplate = await h.request('POST', '/api/v1/email-templates', { body: { name: 'login', subject: 'Code', text: 'Code {{pin}}' } });
    const emailMessage = await h.request('POST', `/2fa/2/applications/${applicationId}/email/messages`, { body: { emailTemplateId: emailTemplate.body.id } });
    const smsPin = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026727' } });
    const emailPin = await h.request('POST', '/2fa/2/pin/email', { body: { applicationId, messageId: emailMessage.body.messageId, to: 'ann@example.com' } });
    const webhook = await h.request('POST', '/api/v1/webhooks', { body: { url: 'https://hooks.example.com/twofa', events: ['*'] } });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const service = await h.request('POST', '/v2/Services', { rawBody: 'FriendlyName=Shop', headers: form });
    const verification = await h.request('POST', `/v2/Services/${service.body.sid}/Verifications`, { rawBody: 'To=%2B41793026727&Channel=sms', headers: form });
    const rateLimit = await h.request('POST', `/v2/Services/${service.body.sid}/RateLimits`, { rawBody: 'UniqueName=ip', headers: form });
    const bucket = await h.request('POST', `/v2/Services/${service.body.sid}/RateLimits/${rateLimit.body.sid}/Buckets`, { rawBody: 'Max=5&Interval=60', headers: form });
    const twilioWebhook = await h.request('POST', `/v2/Services/${service.body.sid}/Webhooks`, { rawBody: 'FriendlyName=crm&EventTypes=*&WebhookUrl=https%3A%2F%2Fhooks.example.com%2Ftwofa', headers: form });
    const factor = await h.request('POST', `/v2/Services/${service.body.sid}/Entities/user-0001/Factors`, { rawBody: 'FriendlyName=phone&FactorType=totp', headers: form });
    // A registered Vonage application: its PUT then takes every field as optional.
    const publicKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    assert.equal((await h.request('PUT', `/api/v1/vonage/applications/${applicationId}`, { body: { publicKey } })).status, 200);
    // Passkey challenges take an empty body (any discoverable passkey) once the relying party is set.
    const relyingParty = { relyingParty: { id: 'example.com', origins: ['https://example.com'] }, authenticatorAttachment: 'any', discoverableCredentials: 'preferred', userVerification: 'preferred' };
    for (const appId of [applicationId, service.body.sid.slice(2).toUpperCase()]) await h.request('PUT', `/api/v1/applications/${appId}/passkeys/settings`, { body: relyingParty });
    const ids: Record<string, string> = { appId: applicationId, applicationId, pinId: smsPin.body.pinId, id: String(emailTemplate.body.id), webhookId: webhook.body.id, ServiceSid: service.body.sid, RateLimitSid: rateLimit.body.sid, Identity: 'user-0001' };
    const optional: string[] = [];
    for (const [where, operation] of operationsOf(doc)) {
      const body = (operation as { requestBody?: { required?: boolean } }).requestBody;
      if (!body) continue;
      assert.equal(typeof body.required, 'boolean', `${where} says whether its body is required`);
      const [method, template] = where.split(' ') as [string, string];
      const url = template.replace(/\{([^}]+)\}/g, (_m, name: string) =>
        name === 'msgId' ? (template.includes('/email/') ? emailMessage.body.messageId : messageId)
          : name === 'pinId' && template.endsWith('/email') ? emailPin.body.pinId
            : name === 'Sid' ? (template.includes('/Verifications/') ? verification.body.sid : template.includes('/Buckets/') ? bucket.body.sid
              : template.includes('/Webhooks/') ? twilioWebhook.body.sid
              : template.includes('/Factors/') ? factor.body.sid : template.includes('/Challenges/') ? `YC${'0'.repeat(32)}`
              : template.includes('/RateLimits/') ? rateLimit.body.sid : service.body.sid) : ids[name]!);
      // No body at all, not even a content type.
      const response = await h.request(method, url, { vonageApplicationId: applicationId });
      if (body.required) {
        // Vonage answers a missing parameter 422 Invalid params, every other dialect 400.
        assert.equal(response.status, dialectOfPath(template) === 'vonage' ? 422 : 400, `${where} without a body: ${JSON.stringify(response.body)}`);
      } else {
        optional.push(where);
        assert.equal(response.status, /[cC]hallenges$/.test(template) ? 201 : 200, `${where} without a body: ${JSON.stringify(response.body)}`);
      }
    }
    assert.deepEqual(optional.sort(), [
      'POST /2fa/2/pin/{pinId}/resend', 'POST /2fa/2/pin/{pinId}/resend/email', 'POST /2fa/2/pin/{pinId}/resend/telegram', 'POST /2fa/2/pin/{pinId}/resend/voice',
      'POST /2fa/2/pin/{pinId}/resend/whatsapp',
      // A passkey challenge of no user or factor asks for any discoverable passkey; the relying party settings, left out, keep their values.
      'POST /api/v1/applications/{appId}/passkey-challenges',
      // Twilio's updates of a Factor, a Service, a Rate Limit, a Bucket and a Webhook take every parameter
      // as optional (a Factor's: a rename, a new configuration, or the code that verifies it).
      'POST /v2/Services/{ServiceSid}/Entities/{Identity}/Factors/{Sid}',
      'POST /v2/Services/{ServiceSid}/Passkeys/Challenges',
      'POST /v2/Services/{ServiceSid}/RateLimits/{RateLimitSid}/Buckets/{Sid}', 'POST /v2/Services/{ServiceSid}/RateLimits/{Sid}',
      'POST /v2/Services/{ServiceSid}/Webhooks/{Sid}',
      'POST /v2/Services/{Sid}',
      'PUT /2fa/2/applications/{appId}/email/messages/{msgId}', 'PUT /2fa/2/applications/{appId}/messages/{msgId}',
      // An empty autofill setting turns autofill off.
      'PUT /api/v1/applications/{appId}/messages/{msgId}/autofill',
      'PUT /api/v1/applications/{appId}/passkeys/settings',
      // Every field of the risk and the security settings is optional (left out: unchanged), so an empty PUT changes nothing.
      'PUT /api/v1/applications/{appId}/risk',
      'PUT /api/v1/applications/{appId}/security',
      // Likewise for a webhook subscription and a registered Vonage application: fields left out keep their values.
      'PUT /api/v1/vonage/applications/{applicationId}',
      'PUT /api/v1/webhooks/{webhookId}',
    ]);
  });

  it('serves interactive docs as HTML at /docs', async () => {
    let response = await h.request('GET', '/docs', { key: null });
    for (let hops = 0; hops < 3 && response.status >= 300 && response.status < 400; hops++) {
      response = await h.request('GET', new URL(String(response.headers['location']), 'http://localhost/docs/').pathname, { key: null });
    }
    assert.equal(response.status, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(String(response.body), /<html/i);
  });
});
