// Vonage Verify v2 through Vonage's official Node SDK (@vonage/server-sdk's Verify2), pointed at a real
// twofa server on 127.0.0.1 by `apiHost`, authenticated as the SDK always does: a JWT signed RS256 by
// a Vonage application's private key, whose public key is registered for a twofa application. Errors
// are checked through the harness too, which holds every answer against twofa's OpenAPI document.
// With TWOFA_TEST_DATABASE=postgres the node runs on PostgreSQL.
import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Auth } from '@vonage/auth';
import { Vonage } from '@vonage/server-sdk';
import { tokenGenerate } from '@vonage/jwt';
import { pinIdOfVonageRequestId } from '../../src/domain/vonage-ids.js';
import { authenticate } from '../../src/service/api-keys.js';
import { createAppAndTemplate, createHarness, deliveredPin, vonageBasic, type Harness } from '../support/harness.js';
import { freshEmail, freshPhone } from '../support/http-assertions.js';

type Rejection = Error & { response?: Response };

/** The SDK rejects every non-2xx answer without reading it; the status and body are on its `response`. */
async function rejection(promise: Promise<unknown>): Promise<{ status: number; contentType: string | null; body: Record<string, unknown> }> {
  try {
    await promise;
  } catch (err) {
    const response = (err as Rejection).response;
    assert.ok(response, `a rejection carrying the answer, not ${String(err)}`);
    return { status: response.status, contentType: response.headers.get('content-type'), body: await response.json() as Record<string, unknown> };
  }
  assert.fail('expected the SDK to reject');
}

function rsaKeys() {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

describe('Vonage Verify v2 through the official Node SDK', () => {
  let h: Harness;
  let base: string;
  let applicationId: string;
  let accountId: string;
  const keys = rsaKeys();

  const verify2 = (privateKey = keys.privateKey, appId = applicationId) => new Vonage(new Auth({ applicationId: appId, privateKey }), { apiHost: base }).verify2;
  const smsTo = (to: string, brand = 'Acme') => ({ brand, workflow: [{ channel: 'sms', to }] }) as never;
  const pinIdOf = (requestId: string) => pinIdOfVonageRequestId(requestId)!;

  async function vonageApplication(configuration: Record<string, unknown> = {}): Promise<string> {
    const app = await createAppAndTemplate(h, { configuration });
    const put = await h.request('PUT', `/api/v1/vonage/applications/${app.applicationId}`, { body: { publicKey: keys.publicKey } });
    assert.equal(put.status, 200);
    return app.applicationId;
  }

  before(async () => {
    h = await createHarness();
    await h.node.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.node.app.server.address() as AddressInfo).port}`;
    accountId = (await authenticate(h.node.store, `App ${h.keys.a}`))!.accountId;
  });
  after(async () => { await h.close(); });
  beforeEach(async () => { applicationId = await vonageApplication({ pinAttempts: 3 }); });

  it('starts a verification (202, a UUID request id), answers a wrong code 400 and the right one completed, then 404', async () => {
    const client = verify2();
    const { requestId } = await client.newRequest(smsTo(freshPhone()));
    assert.match(requestId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const code = await deliveredPin(h, pinIdOf(requestId));
    assert.equal(code.length, 4, 'Vonage\'s default code_length');

    const wrong = await rejection(client.checkCode(requestId, code === '0000' ? '1111' : '0000'));
    assert.equal(wrong.status, 400);
    assert.equal(wrong.contentType, 'application/problem+json; charset=utf-8');
    assert.equal(wrong.body['title'], 'Invalid Code');
    assert.match(String(wrong.body['type']), /verify-v2#invalid-code$/);

    assert.equal(await client.checkCode(requestId, code), 'completed');
    assert.equal((await rejection(client.checkCode(requestId, code))).status, 404);
  });

  it('takes code_length, a chosen code and the brand into the message', async () => {
    const client = verify2();
    const { requestId } = await client.newRequest({ brand: 'Bakery', workflow: [{ channel: 'sms', to: freshPhone() }], codeLength: 8 } as never);
    assert.match(await deliveredPin(h, pinIdOf(requestId)), /^[0-9]{8}$/);
    const chosen = await client.newRequest({ brand: 'Bakery', workflow: [{ channel: 'sms', to: freshPhone() }], code: 'Ab12cd' } as never);
    await h.node.worker.drain();
    const message = h.node.inbox.list(accountId, { limit: 1000 }).find((m) => m.pinId === pinIdOf(chosen.requestId));
    assert.match(message?.text ?? '', /Bakery/);
    assert.equal(await client.checkCode(chosen.requestId, 'Ab12cd'), 'completed');
  });

  it('answers 410 once the wrong codes used up the attempts, and keeps answering 410 for the right one', async () => {
    const client = verify2();
    const { requestId } = await client.newRequest(smsTo(freshPhone()));
    const code = await deliveredPin(h, pinIdOf(requestId));
    const wrongCode = code === '0000' ? '1111' : '0000';
    assert.equal((await rejection(client.checkCode(requestId, wrongCode))).status, 400);
    assert.equal((await rejection(client.checkCode(requestId, wrongCode))).status, 400);
    const last = await rejection(client.checkCode(requestId, wrongCode));
    assert.equal(last.status, 410);
    assert.match(String(last.body['detail']), /too many times/);
    assert.equal((await rejection(client.checkCode(requestId, code))).status, 410);
  });

  it('refuses a second verification to a number with one in flight: 409 naming it', async () => {
    const client = verify2();
    const to = freshPhone();
    const { requestId } = await client.newRequest(smsTo(to));
    const second = await rejection(client.newRequest(smsTo(to)));
    assert.equal(second.status, 409);
    assert.equal(second.body['request_id'], requestId);
    assert.match(String(second.body['type']), /verify-v2#concurrent$/);
    // Once the first is completed, the number takes a new one.
    assert.equal(await client.checkCode(requestId, await deliveredPin(h, pinIdOf(requestId))), 'completed');
    assert.ok((await client.newRequest(smsTo(to))).requestId);
  });

  it('lets exactly one of concurrent starts to a number through; the others are 409 and send nothing', async () => {
    const client = verify2();
    const to = freshPhone();
    const answers = await Promise.allSettled(Array.from({ length: 6 }, () => client.newRequest(smsTo(to))));
    const started = answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value.requestId] : []));
    assert.equal(started.length, 1, JSON.stringify(answers.map((a) => a.status)));
    for (const answer of answers) if (answer.status === 'rejected') assert.equal((answer.reason as Rejection).response?.status, 409);
    await h.node.worker.drain();
    assert.deepEqual(h.node.inbox.list(accountId, { limit: 1000 }).filter((m) => m.to === to).map((m) => m.pinId), [pinIdOf(started[0]!)]);
  });

  it('keeps a message template per brand for workflows, up to ten brands per application, then 422 on brand', async () => {
    const client = verify2();
    const start = (brand: string, to = freshPhone()) => client.newRequest({ brand, workflow: [{ channel: 'sms', to }, { channel: 'voice', to }] } as never);
    for (let i = 0; i < 10; i++) await start(`Brand${i}`);
    await start('Brand0');
    const refused = await rejection(start('Brand10'));
    assert.equal(refused.status, 422);
    assert.deepEqual((refused.body['invalid_parameters'] as Array<{ name: string }>).map((p) => p.name), ['brand']);
    // A request of one channel takes the brand as a placeholder: no template, no bound.
    assert.ok((await client.newRequest(smsTo(freshPhone(), 'Brand10'))).requestId);
  });

  it('cancels a request: its code no longer verifies, a second cancel and an unknown id are false', async () => {
    const client = verify2();
    const to = freshPhone();
    const { requestId } = await client.newRequest(smsTo(to));
    const code = await deliveredPin(h, pinIdOf(requestId));
    assert.equal(await client.cancel(requestId), true);
    assert.equal((await rejection(client.checkCode(requestId, code))).status, 404);
    assert.equal(await client.cancel(requestId), false);
    assert.equal(await client.cancel('00000000-0000-0000-0000-000000000000'), false);
    // A canceled request leaves the number free.
    assert.ok((await client.newRequest(smsTo(to))).requestId);
  });

  it('sends the workflow\'s next channel on next_workflow, the same code, and answers false when none is left', async () => {
    const client = verify2();
    const to = freshPhone();
    const { requestId } = await client.newRequest({ brand: 'Acme', workflow: [{ channel: 'sms', to }, { channel: 'voice', to }], channelTimeout: 300 } as never);
    const pinId = pinIdOf(requestId);
    const code = await deliveredPin(h, pinId);
    const states = async () => (await h.node.store.workflows.list(accountId, pinId)).map((s) => `${s.channel}:${s.state}`);
    assert.deepEqual(await states(), ['sms:sent', 'voice:scheduled']);
    await h.node.workflows.runDue();
    assert.deepEqual(await states(), ['sms:sent', 'voice:scheduled'], 'the voice call waits for channel_timeout');

    assert.equal(await client.nextWorkflow(requestId), true);
    await h.node.workflows.runDue();
    assert.deepEqual(await states(), ['sms:sent', 'voice:sent']);
    await h.node.worker.drain();
    const messages = h.node.inbox.list(accountId, { limit: 1000 }).filter((m) => m.pinId === pinId);
    assert.deepEqual(messages.map((m) => m.channel).sort(), ['sms', 'voice']);
    // The call says the brand too, though the scheduler sends it without the request's placeholders.
    for (const message of messages) assert.match(message.text ?? '', /Acme/);

    assert.equal(await client.nextWorkflow(requestId), false);
    const none = await h.request('POST', `/v2/verify/${requestId}/next_workflow`, { vonageApplicationId: applicationId });
    assert.equal(none.status, 409);
    assert.equal(none.body.detail, 'There are no more events left to trigger.');
    assert.equal(await client.checkCode(requestId, code), 'completed');
  });

  it('sends by email, voice and whatsapp as the first channel', async () => {
    const client = verify2();
    for (const [channel, to] of [['email', freshEmail()], ['voice', freshPhone()], ['whatsapp', freshPhone()]] as const) {
      const { requestId } = await client.newRequest({ brand: 'Acme', workflow: [{ channel, to, ...(channel === 'whatsapp' ? { from: '447700900001' } : {}) }] } as never);
      const pin = await h.node.store.getPin(accountId, pinIdOf(requestId));
      assert.equal(pin?.channel, channel);
    }
  });

  it('answers invalid parameters 422 with invalid_parameters: silent_auth, a template, steps to different numbers, a bad brand', async () => {
    const to = freshPhone();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ brand: 'Acme', workflow: [{ channel: 'silent_auth', to }] }, 'workflow[0].channel'],
      [{ brand: 'Acme', workflow: [{ channel: 'sms', to }], template_id: '8f35a1a7-eb2f-4552-8fdf-fffdaee41bc9' }, 'template_id'],
      [{ brand: 'Acme', workflow: [{ channel: 'sms', to }, { channel: 'voice', to: freshPhone() }] }, 'workflow[1].to'],
      [{ brand: 'Ac/me', workflow: [{ channel: 'sms', to }] }, 'brand'],
      [{ brand: 'Acme', workflow: [] }, 'workflow'],
    ];
    for (const [body, name] of cases) {
      const answer = await h.request('POST', '/v2/verify', { body, vonageApplicationId: applicationId });
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.equal(answer.body.title, 'Invalid params');
      assert.deepEqual(answer.body.invalid_parameters.map((p: { name: string }) => p.name), [name]);
    }
    // Through the SDK too (which only sees the status).
    assert.equal((await rejection(verify2().newRequest({ brand: 'Acme', workflow: [{ channel: 'silent_auth', to }] } as never))).status, 422);
  });

  it('refuses a JWT of another key, an expired one, one of an unregistered application, and Basic with a wrong pair: 401', async () => {
    const other = rsaKeys();
    assert.equal((await rejection(verify2(other.privateKey).newRequest(smsTo(freshPhone())))).status, 401);
    const unregistered = (await createAppAndTemplate(h)).applicationId;
    assert.equal((await rejection(verify2(keys.privateKey, unregistered).newRequest(smsTo(freshPhone())))).status, 401);
    // The SDK's tokens live 15 minutes: one read 30 minutes later (by the server's clock) has expired.
    const token = tokenGenerate(applicationId, keys.privateKey);
    h.clock.advance(30 * 60_000);
    const answer = await h.request('POST', '/v2/verify', { headers: { authorization: `Bearer ${token}` }, body: smsTo(freshPhone()) });
    h.clock.advance(-30 * 60_000);
    assert.equal(answer.status, 401);
    assert.equal(answer.body.title, 'Unauthorized');
    // Algorithm confusion: a token MACed with the public key (which anyone may hold) as an HS256
    // secret, or one with no signature at all, is no token of the application.
    const seconds = Math.floor(h.clock.now / 1000);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = part({ application_id: applicationId, iat: seconds, exp: seconds + 900, jti: 'c0ffee' });
    const hs256 = `${part({ alg: 'HS256', typ: 'JWT' })}.${claims}`;
    const forged = [`${hs256}.${createHmac('sha256', keys.publicKey).update(hs256).digest('base64url')}`, `${part({ alg: 'none', typ: 'JWT' })}.${claims}.`];
    for (const token of forged) {
      assert.equal((await h.request('POST', '/v2/verify', { headers: { authorization: `Bearer ${token}` }, body: smsTo(freshPhone()) })).status, 401);
    }
    // Basic: an application of the key's account, and the key; another account's key fails like a wrong one.
    const basic = await h.request('POST', '/v2/verify', { key: h.keys.b, body: smsTo(freshPhone()), vonageApplicationId: applicationId });
    assert.equal(basic.status, 401);
    const right = await fetch(`${base}/v2/verify`, { method: 'POST', headers: { authorization: vonageBasic(applicationId, h.keys.a), 'content-type': 'application/json' }, body: JSON.stringify(smsTo(freshPhone())) });
    assert.equal(right.status, 202);
    // Removing the key ends its JWTs.
    assert.equal((await h.request('DELETE', `/api/v1/vonage/applications/${applicationId}`)).status, 204);
    assert.equal((await rejection(verify2().newRequest(smsTo(freshPhone())))).status, 401);
  });

  it('keeps another application\'s requests out of reach: 404', async () => {
    const { requestId } = await verify2().newRequest(smsTo(freshPhone()));
    const otherApplication = await vonageApplication();
    assert.equal((await rejection(verify2(keys.privateKey, otherApplication).checkCode(requestId, '1234'))).status, 404);
    assert.equal(await verify2(keys.privateKey, otherApplication).cancel(requestId), false);
  });

  it('is one verification across dialects: started through Vonage, checked through Infobip and Vonage, attempts shared', async () => {
    const client = verify2();
    const { requestId } = await client.newRequest(smsTo(freshPhone()));
    const pinId = pinIdOf(requestId);
    const code = await deliveredPin(h, pinId);
    const wrongCode = code === '0000' ? '1111' : '0000';
    const infobipWrong = await h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin: wrongCode } });
    assert.equal(infobipWrong.status, 200);
    assert.equal(infobipWrong.body.attemptsRemaining, 2);
    assert.equal((await rejection(client.checkCode(requestId, wrongCode))).status, 400);
    const infobipRight = await h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin: code } });
    assert.deepEqual({ verified: infobipRight.body.verified, attemptsRemaining: infobipRight.body.attemptsRemaining }, { verified: true, attemptsRemaining: 0 });
    assert.equal((await rejection(client.checkCode(requestId, code))).status, 404, 'verified already');
  });

  it('answers in Vonage\'s problem shape under /v2/verify only: Prelude\'s and Twilio\'s paths keep theirs', async () => {
    const unknown = await h.request('GET', '/v2/verify/no-such-resource/here', { vonageApplicationId: applicationId });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.deepEqual(Object.keys(unknown.body).sort(), ['detail', 'instance', 'title', 'type']);
    const prelude = await h.request('POST', '/v2/verification/check', { body: {} });
    assert.equal(typeof prelude.body.code, 'string');
    const twilio = await h.request('GET', '/v2/Services/VA00000000000000000000000000000000');
    assert.equal(typeof twilio.body.more_info, 'string');
  });
});
