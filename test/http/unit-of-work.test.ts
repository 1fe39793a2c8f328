// Every write path answers only once what it did is durable and audited (service/unit-of-work.ts),
// on SQLite and (npm test runs test/http twice) PostgreSQL, whose audit appends take different paths.
// A store whose durable() the test holds shows that no answer leaves before its wait; a store whose
// audit appends fail shows that no request is answered 2xx without its audit entry.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { authenticate } from '../../src/service/api-keys.js';
import { pinIdOf } from '../../src/domain/twilio-sids.js';
import { generateKeyPairSync } from 'node:crypto';
import { pinIdOfPreludeId } from '../../src/domain/prelude-ids.js';
import { pinIdOfVonageRequestId } from '../../src/domain/vonage-ids.js';
import type { AuditStore } from '../../src/store/audit-store.js';
import type { Store } from '../../src/store/store.js';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { createEmailMessage, freshEmail, freshPhone, type HttpResult } from '../support/http-assertions.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
/** A Vonage application's public key (its private half signs nothing here). */
const VONAGE_PUBLIC_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();

/** Bounded polling: resolves when `condition` holds, fails the test after `turns` turns of the event loop without it. */
async function until(condition: () => boolean, what: string, turns = 100_000): Promise<void> {
  for (let i = 0; i < turns; i += 1) {
    if (condition()) return;
    await nextTurn();
  }
  assert.fail(`never happened: ${what}`);
}

/** Holds every Store.durable() called while closed, until released; counts the calls. */
function holdDurability(store: Store) {
  const durable = store.durable.bind(store);
  let held: { promise: Promise<void>; release: () => void } | undefined;
  const gate = {
    calls: 0,
    hold() {
      let release!: () => void;
      held = { promise: new Promise<void>((resolve) => { release = resolve; }), release };
    },
    release() {
      held?.release();
      held = undefined;
    },
  };
  store.durable = async () => {
    gate.calls += 1;
    if (held) await held.promise;
    return durable();
  };
  return gate;
}

/** Makes every Store.audit.append fail while `failing` is set. */
function failAuditAppends(audit: AuditStore) {
  const append = audit.append.bind(audit);
  const switcher = { failing: false };
  audit.append = (input, seal) => switcher.failing ? Promise.reject(new Error('audit log unavailable')) : append(input, seal);
  return switcher;
}

describe('the unit of work of every write path', () => {
  let h: Harness;
  let gate: ReturnType<typeof holdDurability>;
  let appends: ReturnType<typeof failAuditAppends>;
  let accountId: string;
  let ids: { applicationId: string; messageId: string };
  let emailMessageId: string;
  let serviceSid: string;

  before(async () => {
    h = await createHarness();
    gate = holdDurability(h.node.store);
    appends = failAuditAppends(h.node.store.audit);
    accountId = (await authenticate(h.node.store, `App ${h.keys.a}`))!.accountId;
    ids = await createAppAndTemplate(h);
    emailMessageId = (await createEmailMessage(h, ids.applicationId)).messageId;
    const service = await h.request('POST', '/v2/Services', { rawBody: 'FriendlyName=Durable', headers: FORM });
    assert.equal(service.status, 201);
    serviceSid = service.body.sid;
    const prelude = await h.request('PUT', '/api/v1/prelude/settings', { body: { applicationId: ids.applicationId } });
    assert.equal(prelude.status, 200, JSON.stringify(prelude.body));
  });
  after(async () => { await h.close(); });

  /**
   * Fires a request while durable() is held and proves its answer waits: it must not arrive before
   * durable() is called nor while the wait is held (a whole other request goes through the server
   * meanwhile: an answer that did not wait would be out by then). Then releases it and answers it.
   */
  async function answeredAfterDurability(fire: () => Promise<HttpResult>): Promise<HttpResult> {
    const before = gate.calls;
    let answered = false;
    gate.hold();
    try {
      const response = fire().finally(() => { answered = true; });
      await until(() => answered || gate.calls > before, 'durable() called or an answer');
      assert.equal(answered, false, 'answered before durable() was called');
      assert.equal((await h.request('GET', '/2fa/2/applications')).status, 200);
      for (let i = 0; i < 20; i += 1) await nextTurn();
      assert.equal(answered, false, 'answered while durable() was still held');
      gate.release();
      return await response;
    } finally {
      gate.release();
    }
  }

  async function sent(path = '/2fa/2/pin', body: Record<string, unknown> = { applicationId: ids.applicationId, messageId: ids.messageId, to: freshPhone() }): Promise<string> {
    const response = await h.request('POST', path, { body });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body.pinId;
  }

  async function started(to = `+${freshPhone()}`): Promise<{ sid: string; to: string }> {
    const response = await h.request('POST', `/v2/Services/${serviceSid}/Verifications`, { rawBody: new URLSearchParams({ To: to, Channel: 'sms' }).toString(), headers: FORM });
    assert.equal(response.status, 201, JSON.stringify(response.body));
    return { sid: response.body.sid, to };
  }

  const form = (fields: Record<string, string>) => ({ rawBody: new URLSearchParams(fields).toString(), headers: FORM });

  async function created(to = `+${freshPhone()}`): Promise<{ id: string; to: string }> {
    const response = await h.request('POST', '/v2/verification', { body: { target: { type: 'phone_number', value: to } } });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return { id: response.body.id, to };
  }

  const vonage = (method: string, url: string, body?: unknown) => h.request(method, url, { vonageApplicationId: ids.applicationId, ...(body !== undefined ? { body } : {}) });

  async function vonageStarted(workflow = [{ channel: 'sms' }]): Promise<string> {
    const to = freshPhone();
    const response = await vonage('POST', '/v2/verify', { brand: 'Acme', workflow: workflow.map((step) => ({ ...step, to })) });
    assert.equal(response.status, 202, JSON.stringify(response.body));
    return response.body.request_id;
  }

  /** Each write path: the request (its preconditions made first), the status it answers, and the audit event it records. */
  const writes: Array<{ name: string; event: string; status: number; request: () => Promise<() => Promise<HttpResult>> }> = [
    { name: 'POST /2fa/2/applications', event: 'config.application.create', status: 200, request: async () => () => h.request('POST', '/2fa/2/applications', { body: { name: 'another' } }) },
    { name: 'PUT /2fa/2/applications/{id}', event: 'config.application.update', status: 200, request: async () => () => h.request('PUT', `/2fa/2/applications/${ids.applicationId}`, { body: { name: 'test app', configuration: { pinAttempts: 10 } } }) },
    { name: 'POST /2fa/2/pin', event: 'pin.send', status: 200, request: async () => () => h.request('POST', '/2fa/2/pin', { body: { applicationId: ids.applicationId, messageId: ids.messageId, to: freshPhone() } }) },
    { name: 'POST /2fa/2/pin/voice', event: 'pin.send', status: 200, request: async () => () => h.request('POST', '/2fa/2/pin/voice', { body: { applicationId: ids.applicationId, messageId: ids.messageId, to: freshPhone() } }) },
    { name: 'POST /2fa/2/pin/email', event: 'pin.send', status: 200, request: async () => () => h.request('POST', '/2fa/2/pin/email', { body: { applicationId: ids.applicationId, messageId: emailMessageId, to: freshEmail() } }) },
    { name: 'POST /2fa/2/pin/{pinId}/resend', event: 'pin.resend', status: 200, request: async () => { const pinId = await sent(); return () => h.request('POST', `/2fa/2/pin/${pinId}/resend`, { body: {} }); } },
    { name: 'POST /2fa/2/pin/{pinId}/verify (right PIN)', event: 'pin.verify', status: 200, request: async () => { const pinId = await sent(); const pin = await deliveredPin(h, pinId); return () => h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin } }); } },
    { name: 'POST /2fa/2/pin/{pinId}/verify (wrong PIN)', event: 'pin.verify', status: 200, request: async () => { const pinId = await sent(); return () => h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin: 'nope' } }); } },
    { name: 'PUT /api/v1/applications/{id}/security', event: 'config.security.update', status: 200, request: async () => () => h.request('PUT', `/api/v1/applications/${ids.applicationId}/security`, { body: { perIpSendLimit: '1000/1s' } }) },
    { name: 'PUT /api/v1/applications/{id}/workflow', event: 'config.workflow.update', status: 200, request: async () => () => h.request('PUT', `/api/v1/applications/${ids.applicationId}/workflow`, { body: { steps: [{ channel: 'sms' }] } }) },
    { name: 'DELETE /api/v1/applications/{id}/workflow', event: 'config.workflow.delete', status: 204, request: async () => () => h.request('DELETE', `/api/v1/applications/${ids.applicationId}/workflow`) },
    { name: 'POST /api/v1/test-numbers', event: 'config.test-number.create', status: 200, request: async () => () => h.request('POST', '/api/v1/test-numbers', { body: { destination: `+${freshPhone()}`, code: '123456' } }) },
    {
      name: 'DELETE /api/v1/test-numbers/{id}', event: 'config.test-number.delete', status: 204, request: async () => {
        const added = await h.request('POST', '/api/v1/test-numbers', { body: { destination: `+${freshPhone()}`, code: '123456' } });
        return () => h.request('DELETE', `/api/v1/test-numbers/${added.body.id}`);
      },
    },
    { name: 'POST /api/v1/twilio/auth-token', event: 'twilio.auth_token.rotate', status: 200, request: async () => () => h.request('POST', '/api/v1/twilio/auth-token') },
    { name: 'POST /v2/Services/{sid}/Verifications (start)', event: 'pin.send', status: 201, request: async () => () => h.request('POST', `/v2/Services/${serviceSid}/Verifications`, form({ To: `+${freshPhone()}`, Channel: 'sms' })) },
    { name: 'POST /v2/Services/{sid}/Verifications (start again: a resend)', event: 'pin.resend', status: 201, request: async () => { const { to } = await started(); return () => h.request('POST', `/v2/Services/${serviceSid}/Verifications`, form({ To: to, Channel: 'sms' })); } },
    {
      name: 'POST /v2/Services/{sid}/VerificationCheck', event: 'pin.verify', status: 200, request: async () => {
        const { sid, to } = await started();
        const code = await deliveredPin(h, pinIdOf(sid)!);
        return () => h.request('POST', `/v2/Services/${serviceSid}/VerificationCheck`, form({ To: to, Code: code }));
      },
    },
    { name: 'POST /v2/Services/{sid}/Verifications/{sid} Status=approved', event: 'pin.verify', status: 200, request: async () => { const { sid } = await started(); return () => h.request('POST', `/v2/Services/${serviceSid}/Verifications/${sid}`, form({ Status: 'approved' })); } },
    { name: 'PUT /api/v1/prelude/settings', event: 'config.prelude.update', status: 200, request: async () => () => h.request('PUT', '/api/v1/prelude/settings', { body: { applicationId: ids.applicationId, customCodeAllowed: false } }) },
    { name: 'POST /v2/verification (Prelude create)', event: 'pin.send', status: 200, request: async () => () => h.request('POST', '/v2/verification', { body: { target: { type: 'phone_number', value: `+${freshPhone()}` } } }) },
    { name: 'POST /v2/verification (Prelude create again: a retry)', event: 'pin.resend', status: 200, request: async () => { const { to } = await created(); return () => h.request('POST', '/v2/verification', { body: { target: { type: 'phone_number', value: to } } }); } },
    {
      name: 'POST /v2/verification/check (Prelude)', event: 'pin.verify', status: 200, request: async () => {
        const { id, to } = await created();
        const code = await deliveredPin(h, pinIdOfPreludeId(id)!);
        return () => h.request('POST', '/v2/verification/check', { body: { target: { type: 'phone_number', value: to }, code } });
      },
    },
    { name: 'POST /v2/verify (Vonage start)', event: 'pin.send', status: 202, request: async () => () => vonage('POST', '/v2/verify', { brand: 'Acme', workflow: [{ channel: 'sms', to: freshPhone() }] }) },
    {
      name: 'POST /v2/verify/{request_id} (Vonage check)', event: 'pin.verify', status: 200, request: async () => {
        const requestId = await vonageStarted();
        const code = await deliveredPin(h, pinIdOfVonageRequestId(requestId)!);
        return () => vonage('POST', `/v2/verify/${requestId}`, { code });
      },
    },
    { name: 'DELETE /v2/verify/{request_id} (Vonage cancel)', event: 'pin.cancel', status: 204, request: async () => { const requestId = await vonageStarted(); return () => vonage('DELETE', `/v2/verify/${requestId}`); } },
    {
      name: 'POST /v2/verify/{request_id}/next_workflow (Vonage)', event: 'pin.workflow.next', status: 200, request: async () => {
        const requestId = await vonageStarted([{ channel: 'sms' }, { channel: 'voice' }]);
        return () => vonage('POST', `/v2/verify/${requestId}/next_workflow`);
      },
    },
    { name: 'PUT /api/v1/vonage/applications/{id}', event: 'config.vonage.application.update', status: 200, request: async () => () => h.request('PUT', `/api/v1/vonage/applications/${ids.applicationId}`, { body: { publicKey: VONAGE_PUBLIC_KEY } }) },
    {
      name: 'DELETE /api/v1/vonage/applications/{id}', event: 'config.vonage.application.delete', status: 204, request: async () => {
        await h.request('PUT', `/api/v1/vonage/applications/${ids.applicationId}`, { body: { publicKey: VONAGE_PUBLIC_KEY } });
        return () => h.request('DELETE', `/api/v1/vonage/applications/${ids.applicationId}`);
      },
    },
    { name: 'POST /v2/Services/{sid}/Verifications/{sid} Status=canceled', event: 'pin.cancel', status: 200, request: async () => { const { sid } = await started(); return () => h.request('POST', `/v2/Services/${serviceSid}/Verifications/${sid}`, form({ Status: 'canceled' })); } },
  ];

  for (const write of writes) {
    it(`answers ${write.name} only after its commits are durable`, async () => {
      const fire = await write.request();
      const response = await answeredAfterDurability(fire);
      assert.equal(response.status, write.status, JSON.stringify(response.body));
    });
  }

  async function lastSeq(): Promise<number> {
    const entries = await h.node.store.audit.list(accountId, {}, 100_000);
    return entries.at(-1)?.seq ?? 0;
  }

  for (const write of writes) {
    it(`never answers ${write.name} with success unaudited when the audit log cannot be written`, async () => {
      const fire = await write.request();
      const seq = await lastSeq();
      appends.failing = true;
      let response: HttpResult;
      try {
        response = await fire();
      } finally {
        appends.failing = false;
      }
      if (response.status >= 500) {
        // Refused in the dialect's own error body.
        if (write.name.includes('/v2/verification')) assert.equal(response.body.code, 'internal', JSON.stringify(response.body));
        else if (write.name.includes('(Vonage')) assert.equal(response.body.title, 'Internal error', JSON.stringify(response.body));
        else if (write.name.includes('/v2/')) assert.equal(response.body.status, 500, JSON.stringify(response.body));
        else assert.ok(response.body.requestError.serviceException.messageId, JSON.stringify(response.body));
        return;
      }
      // Answered: then its entry was written where no failing append could lose it (SQLite's hot path
      // appends a send's and a verify's entry in the transaction of the write itself).
      assert.equal(response.status, write.status, JSON.stringify(response.body));
      const entries = await h.node.store.audit.list(accountId, { afterSeq: seq }, 100);
      assert.ok(entries.some((e) => e.event === write.event), `answered ${response.status} without a ${write.event} entry`);
    });
  }
});
