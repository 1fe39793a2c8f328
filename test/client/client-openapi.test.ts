// The client and the server's OpenAPI document (generated from the route schemas) describe the same
// API: every operation the client performs exists there with that method, every documented API
// operation has a client method, and each client method really sends what its CLIENT_OPERATIONS row
// says (recorded through a stub fetch), so neither the table nor the methods can drift unnoticed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { CLIENT_OPERATIONS, createTwofaClient, type OperationName, type TwofaClient } from '../../src/client/index.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

// Operations for operators and providers, not for API clients: health, metrics, the document itself, and
// the providers' delivery-status callbacks (authenticated by the provider, not by an API key).
const NOT_FOR_THE_CLIENT = new Set(['GET /healthz', 'GET /metrics', 'GET /openapi.json', 'GET /api/v1/callbacks/{provider}', 'POST /api/v1/callbacks/{provider}']);
/** The Twilio Verify dialect (/v2): its clients are Twilio's own SDKs (test/twilio/ drives them). */
const isTwilioDialect = (key: string) => key.split(' ')[1]!.startsWith('/v2/');
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

interface OpenApiOperation {
  parameters?: { in: string; name: string; required?: boolean }[];
  requestBody?: unknown;
}
type OpenApiDocument = { paths: Record<string, Record<string, OpenApiOperation>> };

/** One call per client method, with arguments that fill every parameter it can send. */
const SAMPLE_CALLS: Record<OperationName, (client: TwofaClient) => Promise<unknown>> = {
  'budgets.get': (c) => c.budgets.get(),
  'budgets.set': (c) => c.budgets.set({ currency: 'EUR', daily: '10' }),
  'budgets.delete': (c) => c.budgets.delete(),
  'budgets.getApplication': (c) => c.budgets.getApplication('APP'),
  'budgets.setApplication': (c) => c.budgets.setApplication('APP', { currency: 'EUR', monthly: '100' }),
  'budgets.deleteApplication': (c) => c.budgets.deleteApplication('APP'),
  'stats.spend': (c) => c.stats.spend({ by: 'country', from: 1, to: 2 }),
  'prices.get': (c) => c.prices.get(),
  'prices.reload': (c) => c.prices.reload(),
  'applications.list': (c) => c.applications.list(),
  'applications.create': (c) => c.applications.create({ name: 'n' }),
  'applications.get': (c) => c.applications.get('APP'),
  'applications.update': (c) => c.applications.update('APP', { name: 'n' }),
  'messages.list': (c) => c.messages.list('APP'),
  'messages.create': (c) => c.messages.create('APP', { pinType: 'NUMERIC', messageText: '{{pin}}' }),
  'messages.get': (c) => c.messages.get('APP', 'MSG'),
  'messages.update': (c) => c.messages.update('APP', 'MSG', { pinLength: 6 }),
  'messages.createEmail': (c) => c.messages.createEmail('APP', { emailTemplateId: 1 }),
  'messages.updateEmail': (c) => c.messages.updateEmail('APP', 'MSG', { pinLength: 6 }),
  'messages.getAutofill': (c) => c.messages.getAutofill('APP', 'MSG'),
  'messages.setAutofill': (c) => c.messages.setAutofill('APP', 'MSG', { webOtpDomain: 'example.com', androidAppHash: 'FA+9qCX9VSu' }),
  'messages.listTexts': (c) => c.messages.listTexts('APP', 'MSG'),
  'messages.addText': (c) => c.messages.addText('APP', 'MSG', { locale: 'es-mx', channel: 'sms', text: 'Tu código: {{pin}}' }),
  'messages.getText': (c) => c.messages.getText('APP', 'MSG', 'TXT'),
  'messages.updateText': (c) => c.messages.updateText('APP', 'MSG', 'TXT', { text: 'Código: {{pin}}' }),
  'messages.deleteText': (c) => c.messages.deleteText('APP', 'MSG', 'TXT'),
  'pins.sendSms': (c) => c.pins.sendSms({ applicationId: 'APP', messageId: 'MSG', to: '41793026727' }, { ncNeeded: true }),
  'pins.sendVoice': (c) => c.pins.sendVoice({ applicationId: 'APP', messageId: 'MSG', to: '41793026727' }),
  'pins.sendEmail': (c) => c.pins.sendEmail({ applicationId: 'APP', messageId: 'MSG', to: 'a@example.com' }),
  'pins.sendWhatsapp': (c) => c.pins.sendWhatsapp({ applicationId: 'APP', messageId: 'MSG', to: '41793026727' }),
  'pins.sendTelegram': (c) => c.pins.sendTelegram({ applicationId: 'APP', messageId: 'MSG', to: '41793026727' }),
  'pins.resendSms': (c) => c.pins.resendSms('PIN', {}),
  'pins.resendVoice': (c) => c.pins.resendVoice('PIN', {}),
  'pins.resendEmail': (c) => c.pins.resendEmail('PIN', {}),
  'pins.resendWhatsapp': (c) => c.pins.resendWhatsapp('PIN', {}),
  'pins.resendTelegram': (c) => c.pins.resendTelegram('PIN', {}),
  'pins.verify': (c) => c.pins.verify('PIN', '1234'),
  'pins.verificationStatus': (c) => c.pins.verificationStatus('APP', { msisdn: '41793026727', verified: true, sent: false }),
  'pins.get': (c) => c.pins.get('PIN'),
  'emailTemplates.list': (c) => c.emailTemplates.list(),
  'emailTemplates.create': (c) => c.emailTemplates.create({ name: 'n', subject: 's', text: '{{pin}}' }),
  'emailTemplates.get': (c) => c.emailTemplates.get(7),
  'emailTemplates.update': (c) => c.emailTemplates.update(7, { name: 'n', subject: 's', text: '{{pin}}' }),
  'emailTemplates.delete': (c) => c.emailTemplates.delete(7),
  'inbox.list': (c) => c.inbox.list({ to: '41793026727', limit: 10 }),
  'webhooks.list': (c) => c.webhooks.list(),
  'webhooks.create': (c) => c.webhooks.create({ url: 'https://hooks.example.com/twofa', events: ['pin.sent'] }),
  'webhooks.get': (c) => c.webhooks.get('WH'),
  'webhooks.update': (c) => c.webhooks.update('WH', { enabled: false }),
  'webhooks.delete': (c) => c.webhooks.delete('WH'),
  'testNumbers.list': (c) => c.testNumbers.list(),
  'testNumbers.create': (c) => c.testNumbers.create({ destination: '41790000001', code: '123456' }),
  'testNumbers.delete': (c) => c.testNumbers.delete('TN'),
  'routes.list': (c) => c.routes.list(),
  'routes.reload': (c) => c.routes.reload(),
  'routes.explain': (c) => c.routes.explain({ channel: 'sms', to: '919876543210', applicationId: 'APP' }),
  'routes.listSenders': (c) => c.routes.listSenders('APP'),
  'routes.setSender': (c) => c.routes.setSender('APP', 'IN', { id: 'ACMEIN', kind: 'alphanumeric' }),
  'routes.deleteSender': (c) => c.routes.deleteSender('APP', 'IN'),
  'twilio.getAuthToken': (c) => c.twilio.getAuthToken(),
  'twilio.rotateAuthToken': (c) => c.twilio.rotateAuthToken(),
  'vonage.listApplications': (c) => c.vonage.listApplications(),
  'vonage.getApplication': (c) => c.vonage.getApplication('APP'),
  'vonage.updateApplication': (c) => c.vonage.updateApplication('APP', { publicKey: '-----BEGIN PUBLIC KEY-----' }),
  'vonage.deleteApplication': (c) => c.vonage.deleteApplication('APP'),
  'vonage.rotateSignatureSecret': (c) => c.vonage.rotateSignatureSecret('APP'),
  'prelude.getSettings': (c) => c.prelude.getSettings(),
  'prelude.updateSettings': (c) => c.prelude.updateSettings({ applicationId: 'APP', customCodeAllowed: true }),
  'pins.list': (c) => c.pins.list({ to: '4179', applicationId: 'APP', channel: 'sms', status: 'verified', since: 1, until: 2, cursor: 'CUR', limit: 10 }),
  'stats.get': (c) => c.stats.get({ from: 1, to: 2, bucket: 'hour' }),
  'keys.list': (c) => c.keys.list(),
  'keys.create': (c) => c.keys.create({ label: 'ci', scopes: ['2fa:pin:send'] }),
  'keys.revoke': (c) => c.keys.revoke('KEY'),
  'account.me': (c) => c.account.me(),
  'security.get': (c) => c.security.get('APP'),
  'security.update': (c) => c.security.update('APP', { enabled: true }),
  'risk.get': (c) => c.risk.get('APP'),
  'risk.update': (c) => c.risk.update('APP', { mode: 'shadow', blockScore: 60 }),
  'risk.decisions': (c) => c.risk.decisions({ applicationId: 'APP', country: 'GB', decision: 'block', since: 1, until: 2, cursor: '1.a', limit: 5 }),
  'risk.savings': (c) => c.risk.savings({ applicationId: 'APP', since: 1, until: 2 }),
  'safeList.list': (c) => c.safeList.list(),
  'safeList.add': (c) => c.safeList.add('+447911123456'),
  'safeList.get': (c) => c.safeList.get('+447911123456'),
  'safeList.remove': (c) => c.safeList.remove('+447911123456'),
  'audit.list': (c) => c.audit.list({ applicationId: 'APP', pinId: 'PIN', event: 'pin.send', after: 10, limit: 5 }),
  'workflows.get': (c) => c.workflows.get('APP'),
  'workflows.set': (c) => c.workflows.set('APP', { steps: [{ channel: 'whatsapp' }, { channel: 'sms', after: '30s' }] }),
  'workflows.delete': (c) => c.workflows.delete('APP'),
  'passkeys.getSettings': (c) => c.passkeys.getSettings('APP'),
  'passkeys.updateSettings': (c) => c.passkeys.updateSettings('APP', { relyingParty: { id: 'example.com', origins: ['https://example.com'] }, userVerification: 'preferred' }),
  'passkeys.create': (c) => c.passkeys.create('APP', { identity: 'user-0001', friendlyName: 'Laptop', config: { authenticatorAttachment: 'any' } }),
  'passkeys.verify': (c) => c.passkeys.verify('APP', { id: 'abc', response: { clientDataJSON: 'e30' } }),
  'passkeys.createChallenge': (c) => c.passkeys.createChallenge('APP', { identity: 'user-0001' }),
  'passkeys.approveChallenge': (c) => c.passkeys.approveChallenge('APP', { id: 'abc', response: { clientDataJSON: 'e30' } }),
  'factors.listEntities': (c) => c.factors.listEntities('APP', { limit: 10, offset: 0 }),
  'factors.deleteEntity': (c) => c.factors.deleteEntity('APP', 'user-0001'),
  'factors.list': (c) => c.factors.list('APP', 'user-0001'),
  'factors.create': (c) => c.factors.create('APP', 'user-0001', { type: 'totp', friendlyName: 'phone', config: { codeLength: 6 } }),
  'factors.verify': (c) => c.factors.verify('APP', 'user-0001', 'YF1', '123456'),
  'factors.delete': (c) => c.factors.delete('APP', 'user-0001', 'YF1'),
  'factors.challenge': (c) => c.factors.challenge('APP', 'user-0001', { factorSid: 'YF1', code: '123456' }),
  'factors.getChallenge': (c) => c.factors.getChallenge('APP', 'user-0001', 'YC1'),
  'factors.answerChallenge': (c) => c.factors.answerChallenge('APP', 'user-0001', 'YC1', '123456'),
  'health.ready': (c) => c.health.ready(),
};

interface Recorded { method: string; pathname: string; query: string[]; hasBody: boolean }

async function record(call: (client: TwofaClient) => Promise<unknown>): Promise<Recorded[]> {
  const seen: Recorded[] = [];
  const fetchStub: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    seen.push({ method: init?.method ?? 'GET', pathname: url.pathname, query: [...url.searchParams.keys()], hasBody: init?.body !== undefined });
    return new Response('{"messages":[]}', { status: 200, headers: { 'content-type': 'application/json' } });
  };
  await call(createTwofaClient({ baseUrl: 'http://twofa.invalid', apiKey: 'k', fetch: fetchStub }));
  return seen;
}

/** `/a/{id}/b` matches `/a/<one segment>/b` and nothing else. */
function templateRegExp(template: string): RegExp {
  const escaped = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[^/]+')}$`);
}

describe('client operations and the OpenAPI document', () => {
  let server: ServerProcess;
  let doc: OpenApiDocument;

  before(async () => {
    server = await startServerProcess({ TWOFA_LOG_LEVEL: 'warn' });
    const response = await fetch(`${server.url}/openapi.json`);
    assert.equal(response.status, 200);
    doc = (await response.json()) as OpenApiDocument;
  });

  after(async () => {
    if (!server) return;
    await server.stop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  const documented = () => Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).filter((m) => HTTP_METHODS.includes(m)).map((m) => ({ key: `${m.toUpperCase()} ${path}`, operation: item[m] as OpenApiOperation })));

  it('every operation the client performs is in the document with that method', () => {
    const keys = new Set(documented().map((d) => d.key));
    const missing = CLIENT_OPERATIONS.filter((op) => !keys.has(`${op.method} ${op.path}`)).map((op) => `${op.name}: ${op.method} ${op.path}`);
    assert.deepEqual(missing, []);
  });

  it('every API operation in the document (all but /healthz, /metrics, /openapi.json) has a client method', () => {
    const covered = new Set(CLIENT_OPERATIONS.map((op) => `${op.method} ${op.path}`));
    const uncovered = documented().map((d) => d.key).filter((key) => !NOT_FOR_THE_CLIENT.has(key) && !isTwilioDialect(key) && !covered.has(key));
    assert.deepEqual(uncovered, []);
    // The Infobip surface is complete: 18 operations under /2fa/2, beside twofa's WhatsApp and Telegram ones.
    assert.equal(CLIENT_OPERATIONS.filter((op) => op.path.startsWith('/2fa/2/') && !/\/(whatsapp|telegram)$/.test(op.path)).length, 18);
  });

  it('the table has one row per client method and one client method per row', () => {
    const client = createTwofaClient({ baseUrl: 'http://twofa.invalid', apiKey: 'k' }) as unknown as Record<string, Record<string, unknown>>;
    const methods = Object.entries(client).flatMap(([group, members]) => Object.keys(members).map((m) => `${group}.${m}`)).sort();
    assert.deepEqual(CLIENT_OPERATIONS.map((op) => op.name).sort(), methods);
    assert.equal(new Set(CLIENT_OPERATIONS.map((op) => `${op.method} ${op.path}`)).size, CLIENT_OPERATIONS.length, 'no operation twice');
  });

  // The server takes a resend with no body at all (docs/api.md: "Its body is optional (none, {} or
  // {\"trackDelivery\":false})"; the client sends none when given none), but the document marks it required.
  it('the optional resend bodies are documented as optional', () => {
    const resends = CLIENT_OPERATIONS.filter((op) => op.name.startsWith('pins.resend'));
    assert.equal(resends.length, 5);
    for (const op of resends) {
      const body = doc.paths[op.path]?.[op.method.toLowerCase()]?.requestBody as { required?: boolean } | undefined;
      assert.notEqual(body?.required, true, `${op.method} ${op.path}`);
    }
  });

  for (const op of CLIENT_OPERATIONS) {
    it(`${op.name} sends ${op.method} ${op.path}, with query parameters and a body only where the document has them`, async () => {
      const requests = await record(SAMPLE_CALLS[op.name]);
      assert.equal(requests.length, 1);
      const [request] = requests;
      assert.equal(request?.method, op.method);
      assert.match(request?.pathname ?? '', templateRegExp(op.path));

      const operation = doc.paths[op.path]?.[op.method.toLowerCase()];
      assert.ok(operation, 'documented');
      const queryNames = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      for (const name of request?.query ?? []) assert.ok(queryNames.includes(name), `query parameter ${name} is documented (${queryNames.join(', ')})`);
      for (const p of (operation.parameters ?? []).filter((p) => p.in === 'query' && p.required)) assert.ok(request?.query.includes(p.name), `required ${p.name} sent`);
      if (request?.hasBody) assert.ok(operation.requestBody, 'a body only where the document declares one');
      if ((operation.requestBody as { required?: boolean } | undefined)?.required) assert.ok(request?.hasBody, 'the required body is sent');
    });
  }
});
