// Prelude Verify v2 through Prelude's official Node SDK (@prelude.so/sdk 0.10.0), pointed at a real
// twofa server on 127.0.0.1 by `baseURL`, with a twofa API key as its Bearer token. Every answer the
// SDK receives is held against the fields the SDK's own types declare (Prelude publishes no OpenAPI
// document; see documented-fields.ts) and against twofa's own OpenAPI document. With
// TWOFA_TEST_DATABASE=postgres the node runs on PostgreSQL.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import Prelude from '@prelude.so/sdk';
import { pinIdOfPreludeId } from '../../src/domain/prelude-ids.js';
import { serviceSid } from '../../src/domain/twilio-sids.js';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { freshEmail, freshPhone } from '../support/http-assertions.js';
import { assertResponseConforms } from '../openapi/response-conformance.js';
import { assertCheckAnswer, assertCreateAnswer, assertErrorAnswer } from './documented-fields.js';

interface Call { method: string; path: string; status: number; headers: Headers; body: unknown }

type PreludeError = Error & { status: number; error: { code: string; message: string; type: string; param?: string; request_id: string } };

async function rejection(promise: Promise<unknown>): Promise<PreludeError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof Prelude.APIError, `an APIError, not ${String(err)}`);
    return err as unknown as PreludeError;
  }
  assert.fail('expected the SDK to throw');
}

describe('Prelude Verify v2 through the official Node SDK', () => {
  let h: Harness;
  let base: string;
  let calls: Call[];
  let applicationId: string;

  /** The SDK with a fetch that records every answer it gets (so retries can be counted). */
  function sdk(apiToken: string): Prelude {
    const recording = async (url: string, init: RequestInit) => {
      const response = await fetch(url, init);
      const text = await response.clone().text();
      calls.push({ method: String(init.method), path: new URL(url).pathname, status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) as unknown });
      // Each answer is also one twofa's own OpenAPI document declares for the operation.
      await assertResponseConforms(h.node.app, { method: String(init.method), url: new URL(url).pathname, status: response.status, headers: Object.fromEntries(response.headers), body: text });
      return response;
    };
    return new Prelude({ apiToken, baseURL: base, fetch: recording as never });
  }

  async function useApplication(configuration: Record<string, unknown> = {}, key = h.keys.a): Promise<string> {
    const app = await createAppAndTemplate(h, { configuration, key });
    const set = await h.request('PUT', '/api/v1/prelude/settings', { key, body: { applicationId: app.applicationId } });
    assert.equal(set.status, 200);
    return app.applicationId;
  }

  const phone = () => ({ type: 'phone_number' as const, value: `+${freshPhone()}` });
  const lastCall = () => calls.at(-1)!;

  before(async () => {
    h = await createHarness();
    await h.node.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.node.app.server.address() as AddressInfo).port}`;
  });
  after(async () => { await h.close(); });
  beforeEach(async () => {
    calls = [];
    applicationId = await useApplication({ pinAttempts: 3 });
  });

  it('creates a verification, answers a wrong code failure and the right one success, then expired_or_not_found', async () => {
    const client = sdk(h.keys.a);
    const target = phone();
    const created = await client.verification.create({ target, metadata: { correlation_id: 'order-42' } });
    assertCreateAnswer(lastCall().body);
    assert.equal(created.status, 'success');
    assert.match(created.id, /^vrf_[0-7][0-9a-z]{25}$/);
    assert.equal(created.method, 'message');
    assert.deepEqual(created.channels, ['sms']);
    assert.deepEqual(created.metadata, { correlation_id: 'order-42' });
    assert.equal(typeof created.request_id, 'string');

    const code = await deliveredPin(h, pinIdOfPreludeId(created.id)!);
    const wrong = await client.verification.check({ target, code: code === '000000' ? '111111' : '000000' });
    assertCheckAnswer(lastCall().body);
    assert.equal(wrong.status, 'failure');
    assert.equal(wrong.id, created.id);
    const right = await client.verification.check({ target, code });
    assert.equal(right.status, 'success');
    assert.equal(right.id, created.id);
    const again = await client.verification.check({ target, code });
    assertCheckAnswer(lastCall().body);
    assert.equal(again.status, 'expired_or_not_found');
    assert.equal(again.id, undefined);
    assert.deepEqual(calls.map((c) => c.status), [200, 200, 200, 200], 'each call answered once, nothing retried');
  });

  it('answers a second create within the window as a retry of the same id, sending the same code again', async () => {
    const client = sdk(h.keys.a);
    const target = phone();
    const first = await client.verification.create({ target });
    const code = await deliveredPin(h, pinIdOfPreludeId(first.id)!);
    const second = await client.verification.create({ target, options: { method: 'voice' } });
    assertCreateAnswer(lastCall().body);
    assert.equal(second.status, 'retry');
    assert.equal(second.id, first.id);
    assert.equal(second.method, 'voice');
    assert.deepEqual(second.channels, ['voice']);
    await h.node.worker.drain();
    const accountId = (await h.node.store.getPin((await import('../../src/service/api-keys.js').then((m) => m.authenticate(h.node.store, `App ${h.keys.a}`)))!.accountId, pinIdOfPreludeId(first.id)!))!.accountId;
    const messages = h.node.inbox.list(accountId, { limit: 1000 }).filter((m) => m.pinId === pinIdOfPreludeId(first.id));
    assert.equal(messages.length, 2, 'the code went out twice');
    assert.ok(messages.every((m) => (m.text ?? '').includes(code)), 'the same code both times');
    assert.equal((await client.verification.check({ target, code })).status, 'success');
    // The window closed with the check: the next create opens a new one.
    const third = await client.verification.create({ target });
    assert.equal(third.status, 'success');
    assert.notEqual(third.id, first.id);
  });

  it('sends one PIN for concurrent creates to one target: one success, the others retries of the same id', async () => {
    const client = sdk(h.keys.a);
    const target = phone();
    // The start lock is the race gate: a create that finds it taken waits for it, then finds the live PIN.
    const answers = await Promise.all(Array.from({ length: 6 }, () => client.verification.create({ target })));
    assert.deepEqual(answers.map((a) => a.status).sort(), ['retry', 'retry', 'retry', 'retry', 'retry', 'success']);
    assert.equal(new Set(answers.map((a) => a.id)).size, 1, 'one verification');
    assert.deepEqual(calls.map((c) => c.status), [200, 200, 200, 200, 200, 200], 'no create refused, none repeated by the SDK');
  });

  it('answers blocked with repeated_attempts (200, not retried) when the number\'s send limit refuses, and keeps the window', async () => {
    await useApplication({ sendPinPerPhoneNumberLimit: '1/1d' });
    const client = sdk(h.keys.a);
    const target = phone();
    const first = await client.verification.create({ target });
    assert.equal(first.status, 'success');
    const blocked = await client.verification.create({ target });
    assertCreateAnswer(lastCall().body);
    assert.equal(blocked.status, 'blocked');
    assert.equal(blocked.reason, 'repeated_attempts');
    assert.equal(blocked.id, first.id);
    assert.equal(blocked.channels, undefined);
    assert.equal(calls.length, 2, 'a blocked create is an answer the SDK takes once');
    const code = await deliveredPin(h, pinIdOfPreludeId(first.id)!);
    assert.equal((await client.verification.check({ target, code })).status, 'success');
  });

  it('answers blocked with suspicious, and an id that names nothing, when the application\'s send limit refuses a first create', async () => {
    await useApplication({ sendPinPerApplicationLimit: '1/1d' });
    const client = sdk(h.keys.a);
    assert.equal((await client.verification.create({ target: phone() })).status, 'success');
    const target = phone();
    const blocked = await client.verification.create({ target });
    assert.equal(blocked.status, 'blocked');
    assert.equal(blocked.reason, 'suspicious');
    assert.equal(await h.node.store.getPin('any', pinIdOfPreludeId(blocked.id)!), undefined);
    assert.equal((await client.verification.check({ target, code: '000000' })).status, 'expired_or_not_found', 'no window was opened');
  });

  it('answers a target whose PIN ran out of attempts expired_or_not_found, and a new create opens a new window', async () => {
    const client = sdk(h.keys.a);
    const target = phone();
    const created = await client.verification.create({ target });
    const code = await deliveredPin(h, pinIdOfPreludeId(created.id)!);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 3; i++) assert.equal((await client.verification.check({ target, code: wrong })).status, 'failure');
    assert.equal((await client.verification.check({ target, code })).status, 'expired_or_not_found', 'the right code after the last attempt');
    const next = await client.verification.create({ target });
    assert.equal(next.status, 'success');
    assert.notEqual(next.id, created.id);
  });

  it('sends a code of code_size digits, and a custom_code only once the account allows it', async () => {
    const client = sdk(h.keys.a);
    const sized = await client.verification.create({ target: phone(), options: { code_size: 8 } });
    assert.match(await deliveredPin(h, pinIdOfPreludeId(sized.id)!), /^\d{8}$/);

    const refused = await rejection(client.verification.create({ target: phone(), options: { custom_code: '424242' } }));
    assert.equal(refused.status, 400);
    assert.equal(refused.error.code, 'custom_code_not_allowed');
    assert.equal(refused.error.param, 'options.custom_code');
    assertErrorAnswer(lastCall().body);
    const allowed = await h.request('PUT', '/api/v1/prelude/settings', { body: { applicationId, customCodeAllowed: true } });
    assert.deepEqual(allowed.body, { applicationId, customCodeAllowed: true });
    const target = phone();
    const custom = await client.verification.create({ target, options: { custom_code: '424242' } });
    assert.equal(await deliveredPin(h, pinIdOfPreludeId(custom.id)!), '424242');
    assert.equal((await client.verification.check({ target, code: '424242' })).status, 'success');
  });

  it('speaks the locale asked for, else the number\'s country\'s language', async () => {
    const client = sdk(h.keys.a);
    const greek = await client.verification.create({ target: phone(), options: { locale: 'el-GR' } });
    await h.node.worker.drain();
    const accountOf = async (key: string) => (await import('../../src/service/api-keys.js').then((m) => m.authenticate(h.node.store, `App ${key}`)))!.accountId;
    const textOf = async (id: string) => h.node.inbox.list(await accountOf(h.keys.a), { limit: 1000 }).find((m) => m.pinId === pinIdOfPreludeId(id))!.text!;
    assert.match(await textOf(greek.id), /[α-ω]/, 'a Greek text');
    const german = await client.verification.create({ target: { type: 'phone_number', value: '+4915123456789' } });
    await h.node.worker.drain();
    assert.match(await textOf(german.id), /Bestätigungscode|Code/);
    assert.doesNotMatch(await textOf(german.id), /verification code is/);
  });

  it('verifies an email address (method email, no channels)', async () => {
    const client = sdk(h.keys.a);
    const target = { type: 'email_address' as const, value: freshEmail() };
    const created = await client.verification.create({ target });
    assert.equal(created.method, 'email');
    assert.equal(created.channels, undefined);
    const code = await deliveredPin(h, pinIdOfPreludeId(created.id)!);
    assert.equal((await client.verification.check({ target, code })).status, 'success');
  });

  describe('errors, in Prelude\'s shape, never retried when a repeat could send twice', () => {
    it('refuses an invalid phone number with 400 invalid_phone_number naming target.value, once', async () => {
      const e = await rejection(sdk(h.keys.a).verification.create({ target: { type: 'phone_number', value: '12345' } }));
      assert.ok(e instanceof Prelude.BadRequestError);
      assert.equal(e.error.code, 'invalid_phone_number');
      assert.equal(e.error.param, 'target.value');
      assert.equal(e.error.type, 'bad_request');
      assertErrorAnswer(lastCall().body);
      assert.equal(calls.length, 1);
    });

    it('refuses code_size out of 4..8, and code_size with custom_code', async () => {
      const client = sdk(h.keys.a);
      assert.equal((await rejection(client.verification.create({ target: phone(), options: { code_size: 3 } }))).error.code, 'invalid_code_size');
      assert.equal((await rejection(client.verification.create({ target: phone(), options: { code_size: 6, custom_code: '1234' } }))).error.code, 'custom_size_conflict');
      assert.equal((await rejection(client.verification.create({ target: phone(), options: { template_id: 'no-such-template' } }))).error.code, 'template_not_found');
      assert.equal((await rejection(client.verification.create({ target: phone(), options: { callback_url: 'ftp://example.com/' } }))).error.code, 'invalid_callback_url');
      assert.equal(calls.length, 4);
    });

    it('refuses an unknown token with 401 (AuthenticationError) and a body missing its target with 400', async () => {
      const e = await rejection(sdk('not-a-key').verification.create({ target: phone() }));
      assert.ok(e instanceof Prelude.AuthenticationError);
      assert.equal(e.error.code, 'invalid_bearer_token');
      assert.equal(lastCall().headers.get('www-authenticate'), 'Bearer');
      assertErrorAnswer(lastCall().body);
      const missing = await rejection(sdk(h.keys.a).verification.check({ code: '1234' } as never));
      assert.equal(missing.status, 400);
      assert.equal(missing.error.code, 'invalid_request');
      assert.equal(missing.error.param, 'target');
    });

    it('refuses every call with 404 application_not_configured until the account sets an application', async () => {
      const e = await rejection(sdk(h.keys.b).verification.create({ target: phone() }));
      assert.ok(e instanceof Prelude.NotFoundError);
      assert.equal(e.error.code, 'application_not_configured');
      assert.match(e.error.message, /PUT \/api\/v1\/prelude\/settings/);
      assert.deepEqual((await h.request('GET', '/api/v1/prelude/settings', { key: h.keys.b })).body, { applicationId: null, customCodeAllowed: false });
      const other = await h.request('PUT', '/api/v1/prelude/settings', { key: h.keys.b, body: { applicationId } });
      assert.equal(other.status, 400, 'another account\'s application is not one of this account');
    });

    it('marks a 5xx x-should-retry: false, so the SDK does not repeat a create that may have sent', async () => {
      const broken = h.node.store.prelude.getSettings.bind(h.node.store.prelude);
      h.node.store.prelude.getSettings = async () => { throw new Error('the database went away'); };
      try {
        const e = await rejection(sdk(h.keys.a).verification.create({ target: phone() }));
        assert.equal(e.status, 500);
        assert.equal(e.error.code, 'internal');
        assert.equal(calls.length, 1, 'not retried');
        assert.equal(lastCall().headers.get('x-should-retry'), 'false');
      } finally {
        h.node.store.prelude.getSettings = broken;
      }
    });
  });

  describe('one engine under every dialect', () => {
    it('checks a PIN created through Prelude through Infobip\'s verify, attempts shared', async () => {
      const client = sdk(h.keys.a);
      const target = phone();
      const created = await client.verification.create({ target });
      const pinId = pinIdOfPreludeId(created.id)!;
      const code = await deliveredPin(h, pinId);
      const wrong = code === '000000' ? '111111' : '000000';
      assert.equal((await client.verification.check({ target, code: wrong })).status, 'failure');
      const infobipWrong = await h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin: wrong } });
      assert.equal(infobipWrong.status, 200);
      assert.equal(infobipWrong.body.attemptsRemaining, 1, 'three attempts: one spent through Prelude, one through Infobip');
      const right = await h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin: code } });
      assert.equal(right.body.verified, true);
      assert.equal((await client.verification.check({ target, code })).status, 'expired_or_not_found', 'verified through Infobip: the window is closed');
    });

    it('checks a PIN created through Prelude through Twilio\'s VerificationCheck by To, and the reverse', async () => {
      const client = sdk(h.keys.a);
      const target = phone();
      const created = await client.verification.create({ target });
      const code = await deliveredPin(h, pinIdOfPreludeId(created.id)!);
      const checked = await h.request('POST', `/v2/Services/${serviceSid(applicationId)}/VerificationCheck`, {
        rawBody: new URLSearchParams({ To: target.value, Code: code }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(checked.status, 200);
      assert.equal(checked.body.status, 'approved');
      assert.equal(checked.body.sid, `VE${pinIdOfPreludeId(created.id)!.toLowerCase()}`);

      const other = phone();
      const started = await h.request('POST', `/v2/Services/${serviceSid(applicationId)}/Verifications`, {
        rawBody: new URLSearchParams({ To: other.value, Channel: 'sms' }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(started.status, 201);
      const twilioCode = await deliveredPin(h, started.body.sid.slice(2).toUpperCase());
      const viaPrelude = await client.verification.check({ target: other, code: twilioCode });
      assert.equal(viaPrelude.status, 'success');
      assert.equal(pinIdOfPreludeId(viaPrelude.id!), started.body.sid.slice(2).toUpperCase());
    });

    it('answers a create for a target with a live PIN sent through Infobip as a retry of that PIN', async () => {
      const target = phone();
      const { messageId } = await createAppAndTemplate(h);
      const templates = await h.request('POST', `/2fa/2/applications/${applicationId}/messages`, { body: { pinType: 'NUMERIC', pinLength: 6, messageText: 'Code {{pin}}' } });
      assert.equal(templates.status, 200);
      assert.ok(messageId);
      const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId: templates.body.messageId, to: target.value.slice(1) } });
      assert.equal(sent.status, 200);
      const retried = await sdk(h.keys.a).verification.create({ target });
      assert.equal(retried.status, 'retry');
      assert.equal(pinIdOfPreludeId(retried.id), sent.body.pinId);
    });
  });
});
