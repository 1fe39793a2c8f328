// The typed client (src/client) against a real `twofa serve` process: the whole flow an integrator
// writes (application, templates, email template, send by SMS/voice/email, read the PIN from the
// inbox, verify, status, resend), and every failure surfacing as a TwofaApiError.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTwofaClient, TwofaApiError, type InboxMessage, type TwofaClient } from '../../src/client/index.js';
import { PROJECT_ROOT, freePort, startServerProcess, type ServerProcess } from '../support/server-process.js';

const PIN_ID = /^[0-9A-F]{32}$/;
const PHONE = '41793026727';
const EMAIL = 'ann@example.com';

/** Delivery is asynchronous (outbox worker): polls the inbox until `count` messages for the PIN arrived. */
async function waitForMessages(client: TwofaClient, to: string, pinId: string, count = 1): Promise<InboxMessage[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const messages = (await client.inbox.list({ to, limit: 1000 })).filter((m) => m.pinId === pinId);
    if (messages.length >= count) return messages;
    if (Date.now() > deadline) throw new Error(`no ${count} inbox message(s) for PIN ${pinId} to ${to} in time`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function pinIn(message: InboxMessage | undefined): string {
  const pin = /code is ([0-9A-Z]+)/.exec(message?.text ?? '')?.[1];
  if (!pin) throw new Error(`no PIN in ${JSON.stringify(message)}`);
  return pin;
}

/** A different PIN of the same length and alphabet (digits). */
const wrongPin = (pin: string) => `${pin.slice(0, -1)}${(Number(pin.at(-1)) + 1) % 10}`;

async function rejectsWith(promise: Promise<unknown>, expected: Partial<Record<keyof TwofaApiError, unknown>>): Promise<TwofaApiError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof TwofaApiError, `expected a TwofaApiError, got ${String(error)}`);
  for (const [key, value] of Object.entries(expected)) assert.deepEqual((error as unknown as Record<string, unknown>)[key], value, key);
  return error;
}

describe('client against a real server', () => {
  let server: ServerProcess;
  let client: TwofaClient;
  let appId: string;
  let smsMessageId: string;
  let emailTemplateId: number;
  let emailMessageId: string;

  before(async () => {
    server = await startServerProcess({ TWOFA_LOG_LEVEL: 'warn' });
    client = createTwofaClient({ baseUrl: server.url, apiKey: server.key });
  });

  after(async () => {
    if (!server) return;
    await server.stop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('health.ready() is true for a running node', async () => {
    assert.equal(await client.health.ready(), true);
  });

  it('applications: create (defaults filled in), list, get, update (merge)', async () => {
    const created = await client.applications.create({ name: 'Login', configuration: { pinAttempts: 5, verifyPinLimit: '1000/1s', sendPinPerPhoneNumberLimit: '100/1d' } });
    assert.match(created.applicationId, PIN_ID);
    assert.deepEqual(created.configuration, {
      pinAttempts: 5, allowMultiplePinVerifications: true, pinTimeToLive: '15m', verifyPinLimit: '1000/1s',
      sendPinPerApplicationLimit: '10000/1d', sendPinPerPhoneNumberLimit: '100/1d',
    });
    assert.equal(created.enabled, true);
    appId = created.applicationId;

    assert.ok((await client.applications.list()).some((a) => a.applicationId === appId));
    assert.deepEqual(await client.applications.get(appId), created);
    const updated = await client.applications.update(appId, { name: 'Login v2', configuration: { pinTimeToLive: '10m' } });
    assert.equal(updated.name, 'Login v2');
    assert.deepEqual(updated.configuration, { ...created.configuration, pinTimeToLive: '10m' });
  });

  it('messages: create an SMS/voice template, list, get, update', async () => {
    const created = await client.messages.create(appId, { pinType: 'NUMERIC', pinLength: 4, messageText: 'Hello {{name}}, your code is {{pin}}', senderId: 'Acme' });
    assert.equal(created.applicationId, appId);
    assert.equal(created.pinPlaceholder, '{{pin}}');
    assert.equal(created.language, 'en');
    smsMessageId = created.messageId;

    const updated = await client.messages.update(appId, smsMessageId, { pinLength: 6 });
    assert.equal(updated.pinLength, 6);
    assert.equal(updated.messageText, 'Hello {{name}}, your code is {{pin}}', 'update merges');
    assert.deepEqual(await client.messages.get(appId, smsMessageId), updated);
    assert.deepEqual((await client.messages.list(appId)).map((m) => m.messageId), [smsMessageId]);
  });

  it('email templates (/api/v1) and an email message template referencing one', async () => {
    const template = await client.emailTemplates.create({ name: 'login', subject: 'Your code', text: 'Your code is {{pin}}', html: '<p>Your code is <b>{{pin}}</b></p>' });
    assert.ok(Number.isInteger(template.id));
    assert.equal(template.from, null);
    emailTemplateId = template.id;
    assert.deepEqual(await client.emailTemplates.get(emailTemplateId), template);
    assert.ok((await client.emailTemplates.list()).some((t) => t.id === emailTemplateId));
    const replaced = await client.emailTemplates.update(emailTemplateId, { name: 'login', subject: 'Your Acme code', from: 'Acme <no-reply@acme.example>', text: 'Your code is {{pin}}' });
    assert.equal(replaced.subject, 'Your Acme code');
    assert.equal(replaced.html, null, 'update replaces the whole template');

    const email = await client.messages.createEmail(appId, { emailTemplateId });
    assert.deepEqual({ pinLength: email.pinLength, pinType: email.pinType, emailTemplateId: email.emailTemplateId }, { pinLength: 4, pinType: 'NUMERIC', emailTemplateId });
    emailMessageId = email.messageId;
    const updated = await client.messages.updateEmail(appId, emailMessageId, { pinLength: 6, from: 'Acme Security <security@acme.example>' });
    assert.equal(updated.pinLength, 6);
    assert.equal(updated.from, 'Acme Security <security@acme.example>');
    const fetched = await client.messages.get(appId, emailMessageId);
    assert.equal(fetched.emailTemplateId, emailTemplateId);
    assert.deepEqual((await client.messages.list(appId)).map((m) => m.messageId).sort(), [smsMessageId, emailMessageId].sort());
  });

  it('SMS: send, read the PIN from the inbox, a wrong PIN then the right one, verification status', async () => {
    const sent = await client.pins.sendSms({ applicationId: appId, messageId: smsMessageId, to: PHONE, placeholders: { name: 'Ann' } });
    assert.match(sent.pinId, PIN_ID);
    assert.deepEqual({ ...sent, pinId: 'x' }, { pinId: 'x', to: PHONE, ncStatus: 'NC_NOT_CONFIGURED', smsStatus: 'MESSAGE_SENT' });

    const [message] = await waitForMessages(client, PHONE, sent.pinId);
    assert.equal(message?.channel, 'sms');
    assert.equal(message?.from, 'Acme');
    assert.match(message?.text ?? '', /^Hello Ann, your code is \d{6}$/);
    const pin = pinIn(message);

    const wrong = await client.pins.verify(sent.pinId, wrongPin(pin));
    assert.deepEqual(wrong, { pinId: sent.pinId, msisdn: PHONE, verified: false, attemptsRemaining: 4, pinError: 'WRONG_PIN' });
    const right = await client.pins.verify(sent.pinId, pin);
    assert.deepEqual(right, { pinId: sent.pinId, msisdn: PHONE, verified: true, attemptsRemaining: 3 });

    const status = await client.pins.verificationStatus(appId, { msisdn: PHONE, verified: true });
    assert.equal(status.verifications.length, 1);
    assert.equal(status.verifications[0]?.verified, true);
    assert.equal(typeof status.verifications[0]?.verifiedAt, 'number');
    assert.deepEqual(await client.pins.verificationStatus(appId, { msisdn: PHONE, verified: false }), { verifications: [] });

    const details = await client.pins.get(sent.pinId);
    assert.deepEqual(
      { pinId: details.pinId, applicationId: details.applicationId, messageId: details.messageId, channel: details.channel, to: details.to, state: details.state, attemptsRemaining: details.attemptsRemaining },
      { pinId: sent.pinId, applicationId: appId, messageId: smsMessageId, channel: 'sms', to: PHONE, state: 'verified', attemptsRemaining: 3 },
    );
    assert.ok(!JSON.stringify(details).includes(`"${pin}"`), 'never the PIN');
  });

  it('SMS with ncNeeded false leaves ncStatus out; trackDelivery adds externalMessageId', async () => {
    const sent = await client.pins.sendSms({ applicationId: appId, messageId: smsMessageId, to: '41793026728', placeholders: { name: 'Bo' }, trackDelivery: true }, { ncNeeded: false });
    assert.deepEqual(Object.keys(sent).sort(), ['externalMessageId', 'pinId', 'smsStatus', 'to']);
  });

  it('resend by SMS (no body) and by voice delivers the same PIN under the same pinId', async () => {
    const to = '41793026729';
    // Without custom placeholders in the template (a resend must repeat them, as Infobip documents).
    const plain = await client.messages.create(appId, { pinType: 'NUMERIC', pinLength: 6, messageText: 'Your code is {{pin}}' });
    const sent = await client.pins.sendSms({ applicationId: appId, messageId: plain.messageId, to });
    const resent = await client.pins.resendSms(sent.pinId);
    assert.equal(resent.pinId, sent.pinId);
    assert.equal(resent.smsStatus, 'MESSAGE_SENT');
    const byVoice = await client.pins.resendVoice(sent.pinId, { trackDelivery: false });
    assert.deepEqual(byVoice, { pinId: sent.pinId, to, callStatus: 'PENDING_ACCEPTED' });

    const messages = await waitForMessages(client, to, sent.pinId, 3);
    assert.deepEqual(messages.map((m) => m.channel).sort(), ['sms', 'sms', 'voice']);
    const pins = new Set(messages.map(pinIn));
    assert.equal(pins.size, 1, 'one PIN, delivered three times');
    assert.equal((await client.pins.verify(sent.pinId, [...pins][0] ?? '')).verified, true);
  });

  it('voice: send and verify', async () => {
    const to = '41793026730';
    const sent = await client.pins.sendVoice({ applicationId: appId, messageId: smsMessageId, to, placeholders: { name: 'Di' } });
    assert.deepEqual({ ...sent, pinId: 'x' }, { pinId: 'x', to, callStatus: 'PENDING_ACCEPTED' });
    const [message] = await waitForMessages(client, to, sent.pinId);
    assert.equal(message?.channel, 'voice');
    assert.equal((await client.pins.verify(sent.pinId, pinIn(message))).verified, true);
  });

  it('email: send, resend, read, verify; the status lists the address', async () => {
    const sent = await client.pins.sendEmail({ applicationId: appId, messageId: emailMessageId, to: EMAIL });
    assert.match(sent.pinId, PIN_ID);
    assert.deepEqual(sent.emailStatus, { name: 'PENDING_ACCEPTED', description: 'Message accepted, pending for delivery.' });
    const resent = await client.pins.resendEmail(sent.pinId, {});
    assert.equal(resent.pinId, sent.pinId);

    const messages = await waitForMessages(client, EMAIL, sent.pinId, 2);
    const [first] = messages;
    assert.equal(first?.channel, 'email');
    assert.equal(first?.subject, 'Your Acme code');
    assert.equal(first?.from, 'Acme Security <security@acme.example>', "the email message's from wins over the template's");
    assert.equal(new Set(messages.map(pinIn)).size, 1);
    const pin = pinIn(first);
    assert.match(pin, /^\d{6}$/);
    assert.deepEqual(await client.pins.verify(sent.pinId, pin), { pinId: sent.pinId, msisdn: EMAIL, verified: true, attemptsRemaining: 4 });
    const status = await client.pins.verificationStatus(appId, { msisdn: EMAIL, sent: true });
    assert.deepEqual(status.verifications.map((v) => [v.msisdn, v.verified]), [[EMAIL, true]]);
  });

  it('email templates: delete answers void; one in use is a 409 CONFLICT', async () => {
    await rejectsWith(client.emailTemplates.delete(emailTemplateId), { status: 409, messageId: 'CONFLICT' });
    const spare = await client.emailTemplates.create({ name: 'spare', subject: 'Code', text: '{{pin}}' });
    assert.equal(await client.emailTemplates.delete(spare.id), undefined);
    await rejectsWith(client.emailTemplates.get(spare.id), { status: 404, messageId: 'NOT_FOUND' });
  });

  it('errors: 404 with the request id, 400 with validationErrors, 401 for a wrong key', async () => {
    const notFound = await rejectsWith(client.applications.get('0123456789ABCDEF0123456789ABCDEF'), { status: 404, messageId: 'NOT_FOUND' });
    assert.equal(typeof notFound.requestId, 'string');
    assert.ok((notFound.requestId ?? '').length > 0);
    assert.equal(notFound.retryAfterSeconds, undefined);
    assert.equal(notFound.name, 'TwofaApiError');
    assert.match(notFound.message, /^404 NOT_FOUND: /);

    const badConfig = await rejectsWith(client.applications.create({ name: 'x', configuration: { pinTimeToLive: 'forever' } }), { status: 400, messageId: 'BAD_REQUEST' });
    assert.deepEqual(Object.keys(badConfig.validationErrors ?? {}), ['configuration.pinTimeToLive']);

    // A body the server's schema refuses (name missing): the field is named too.
    const noName = await rejectsWith(client.applications.create({} as never), { status: 400, messageId: 'BAD_REQUEST' });
    assert.ok(noName.validationErrors?.['name'], JSON.stringify(noName.validationErrors));

    const badPhone = await rejectsWith(client.pins.sendSms({ applicationId: appId, messageId: smsMessageId, to: 'not-a-number', placeholders: { name: 'x' } }), { status: 400 });
    assert.ok(badPhone.validationErrors?.['to']);

    const stranger = createTwofaClient({ baseUrl: server.url, apiKey: 'not-a-key-0123456789' });
    await rejectsWith(stranger.applications.list(), { status: 401, messageId: 'UNAUTHORIZED' });
  });

  it('the Bearer scheme works like App', async () => {
    const bearer = createTwofaClient({ baseUrl: `${server.url}/`, apiKey: server.key, scheme: 'Bearer' });
    assert.ok((await bearer.applications.list()).some((a) => a.applicationId === appId));
  });

  it('path parameters are percent-encoded: an id with "/" or "?" stays one segment (404, not another route)', async () => {
    await rejectsWith(client.applications.get(`${appId}/messages`), { status: 404, messageId: 'NOT_FOUND' });
    await rejectsWith(client.messages.get(appId, '?x=1'), { status: 404, messageId: 'NOT_FOUND' });
  });

  it('429 TOO_MANY_REQUESTS with retryAfterSeconds when sendPinPerPhoneNumberLimit ("1/1d") is used up', async () => {
    const limited = await client.applications.create({ name: 'limited', configuration: { sendPinPerPhoneNumberLimit: '1/1d' } });
    const template = await client.messages.create(limited.applicationId, { pinType: 'NUMERIC', messageText: 'Your code is {{pin}}' });
    const request = { applicationId: limited.applicationId, messageId: template.messageId, to: '41793026731' };
    await client.pins.sendSms(request);
    const refused = await rejectsWith(client.pins.sendSms(request), { status: 429, messageId: 'TOO_MANY_REQUESTS' });
    assert.equal(typeof refused.retryAfterSeconds, 'number');
    assert.ok((refused.retryAfterSeconds ?? 0) > 86_000 && (refused.retryAfterSeconds ?? 0) <= 86_400, String(refused.retryAfterSeconds));
    assert.equal(typeof refused.requestId, 'string');
  });
});

describe('client without a server', () => {
  const ok = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

  it('a non-JSON error body is still a TwofaApiError: GENERAL_ERROR with the real status', async () => {
    const fetchStub: typeof fetch = async () => new Response('<html><body>502 Bad Gateway</body></html>', {
      status: 502, headers: { 'content-type': 'text/html', 'retry-after': '7', 'x-request-id': 'proxy-1' },
    });
    const client = createTwofaClient({ baseUrl: 'http://twofa.invalid', apiKey: 'k', fetch: fetchStub });
    const error = await rejectsWith(client.applications.list(), { status: 502, messageId: 'GENERAL_ERROR', retryAfterSeconds: 7, requestId: 'proxy-1' });
    assert.match(error.text, /502 Bad Gateway/);
    assert.equal('validationErrors' in error, false);
  });

  it('an empty error body and a non-envelope JSON body are GENERAL_ERROR too', async () => {
    const empty = createTwofaClient({ baseUrl: 'http://twofa.invalid', apiKey: 'k', fetch: async () => new Response(null, { status: 503 }) });
    await rejectsWith(empty.applications.list(), { status: 503, messageId: 'GENERAL_ERROR' });
    const other = createTwofaClient({ baseUrl: 'http://twofa.invalid', apiKey: 'k', fetch: async () => new Response('{"error":"nope"}', { status: 400 }) });
    await rejectsWith(other.applications.list(), { status: 400, messageId: 'GENERAL_ERROR' });
  });

  it('Retry-After as an HTTP date becomes seconds from now', async () => {
    const at = new Date(Date.now() + 120_000).toUTCString();
    const client = createTwofaClient({ baseUrl: 'http://twofa.invalid', apiKey: 'k', fetch: async () => new Response('{"requestError":{"serviceException":{"messageId":"TOO_MANY_REQUESTS","text":"Too many requests"}}}', { status: 429, headers: { 'retry-after': at } }) });
    const error = await rejectsWith(client.pins.verify('P', '1234'), { status: 429, messageId: 'TOO_MANY_REQUESTS', text: 'Too many requests' });
    assert.ok((error.retryAfterSeconds ?? 0) >= 118 && (error.retryAfterSeconds ?? 0) <= 120, String(error.retryAfterSeconds));
  });

  it('builds requests from the operation table: encoded segments, auth header, JSON body, query booleans', async () => {
    const seen: { method: string; url: string; headers: Record<string, string>; body: unknown }[] = [];
    const fetchStub: typeof fetch = async (input, init) => {
      seen.push({ method: init?.method ?? 'GET', url: String(input), headers: init?.headers as Record<string, string>, body: init?.body });
      return ok({ verifications: [], messages: [] });
    };
    const client = createTwofaClient({ baseUrl: 'https://twofa.example/prefix//', apiKey: 'secret-key', fetch: fetchStub });
    await client.messages.get('a/b', 'c?d#e f');
    await client.pins.verificationStatus('app 1', { msisdn: '+41 79', verified: false, sent: true });
    await client.pins.sendSms({ applicationId: 'a', messageId: 'm', to: '1' });
    await client.pins.sendSms({ applicationId: 'a', messageId: 'm', to: '1' }, { ncNeeded: false });
    await client.pins.resendSms('p');
    await client.inbox.list({ to: 'ann@example.com', limit: 5 });
    assert.deepEqual(seen.map((s) => `${s.method} ${s.url}`), [
      'GET https://twofa.example/prefix/2fa/2/applications/a%2Fb/messages/c%3Fd%23e%20f',
      'GET https://twofa.example/prefix/2fa/2/applications/app%201/verifications?msisdn=%2B41+79&verified=false&sent=true',
      'POST https://twofa.example/prefix/2fa/2/pin',
      'POST https://twofa.example/prefix/2fa/2/pin?ncNeeded=false',
      'POST https://twofa.example/prefix/2fa/2/pin/p/resend',
      'GET https://twofa.example/prefix/api/v1/inbox?to=ann%40example.com&limit=5',
    ]);
    assert.equal(seen[0]?.headers['authorization'], 'App secret-key');
    assert.equal(seen[0]?.body, undefined);
    assert.equal(seen[0]?.headers['content-type'], undefined, 'no content type without a body');
    assert.equal(seen[2]?.body, JSON.stringify({ applicationId: 'a', messageId: 'm', to: '1' }));
    assert.equal(seen[2]?.headers['content-type'], 'application/json');
    assert.equal(seen[4]?.body, undefined, 'resend without a body sends none');
  });

  it('refuses ids that would address another route ("", ".", "..") and a base URL without a scheme', async () => {
    const client = createTwofaClient({ baseUrl: 'http://twofa.invalid', apiKey: 'k', fetch: async () => ok({}) });
    for (const id of ['', '.', '..']) await assert.rejects(client.applications.get(id), TypeError);
    assert.throws(() => createTwofaClient({ baseUrl: '127.0.0.1:8080', apiKey: 'k' }), TypeError);
    assert.throws(() => createTwofaClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: '' }), TypeError);
  });

  it('a timeout rejects with fetch\'s own TimeoutError, not a TwofaApiError', async () => {
    // AbortSignal.timeout's timer does not keep the process alive (a real fetch's socket does): the
    // stub holds a timer of its own until the abort arrives.
    const hanging: typeof fetch = (_input, init) => new Promise((_resolve, reject) => {
      const keepAlive = setTimeout(() => reject(new Error('the client never aborted')), 5_000);
      init?.signal?.addEventListener('abort', () => { clearTimeout(keepAlive); reject(init.signal?.reason); });
    });
    const client = createTwofaClient({ baseUrl: 'http://twofa.invalid', apiKey: 'k', fetch: hanging, timeoutMs: 30 });
    await assert.rejects(client.applications.list(), (err: Error) => err.name === 'TimeoutError' && !(err instanceof TwofaApiError));
  });

  it('health.ready() is false when nothing answers', async () => {
    const client = createTwofaClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: 'k' });
    assert.equal(await client.health.ready(), false);
  });

  it('has no runtime import but its own files (type-only imports are erased)', () => {
    const dir = path.join(PROJECT_ROOT, 'src', 'client');
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const source = fs.readFileSync(path.join(dir, file), 'utf8');
      for (const match of source.matchAll(/^(import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)) {
        assert.match(match[2] ?? '', /^\.\/[a-z-]+\.js$/, `${file}: runtime import of ${match[2]}`);
      }
    }
  });
});
