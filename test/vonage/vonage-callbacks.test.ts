// Vonage Verify callbacks: a Vonage application's callback URL and signature secret (through
// /api/v1/vonage/applications), then the `event` and `summary` callbacks of its requests delivered by
// the event worker to a real HTTP receiver on 127.0.0.1, each checked as a receiver written for
// Vonage checks it: @vonage/jwt's verifySignature with the signature secret, then the token's
// payload_hash against the body's SHA-256. With TWOFA_TEST_DATABASE=postgres the node runs on PostgreSQL.
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Auth } from '@vonage/auth';
import { verifySignature } from '@vonage/jwt';
import { Vonage } from '@vonage/server-sdk';
import { pinIdOfVonageRequestId } from '../../src/domain/vonage-ids.js';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { freshPhone } from '../support/http-assertions.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

interface Received { path: string; authorization: string; body: string; json: Record<string, unknown> }

const { publicKey, privateKey } = (() => {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
})();

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function claimsOf(authorization: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(authorization.replace(/^Bearer /, '').split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('Vonage Verify callbacks (event, summary), signed as Vonage signs them', () => {
  let h: Harness;
  let base: string;
  let hookBase: string;
  let receiver: WebhookReceiver;
  let applicationId: string;
  let secret: string;

  const verify2 = () => new Vonage(new Auth({ applicationId, privateKey }), { apiHost: base }).verify2;

  before(async () => {
    // http:// to the receiver on loopback needs the operator's opt-in to private addresses.
    h = await createHarness({ TWOFA_WEBHOOK_ALLOW_PRIVATE: 'true' });
    await h.node.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.node.app.server.address() as AddressInfo).port}`;
    receiver = await startWebhookReceiver();
    hookBase = receiver.base;
  });
  after(async () => {
    await h.close();
    await receiver.close();
  });
  beforeEach(async () => {
    receiver.received.length = 0;
    applicationId = (await createAppAndTemplate(h, { configuration: { pinAttempts: 2 } })).applicationId;
    const put = await h.request('PUT', `/api/v1/vonage/applications/${applicationId}`, { body: { publicKey, callbackUrl: `${hookBase}/vonage?tenant=7` } });
    assert.equal(put.status, 200);
    assert.equal(put.body.callbackUrl, `${hookBase}/vonage?tenant=7`);
    assert.equal(put.body.signatureSecretSet, true);
    secret = put.body.signatureSecret as string;
    assert.ok(secret.length >= 32, 'the first callback URL comes with a new signature secret, shown once');
  });

  /** Runs the callback sweep and the deliveries, and answers what the receiver got, each checked as Vonage's receivers check it. */
  async function callbacks(signedWith = secret): Promise<Received[]> {
    await h.node.events.drain();
    const received = receiver.received.map((r): Received => ({ path: r.path, authorization: r.headers.authorization ?? '', body: r.body, json: JSON.parse(r.body) as Record<string, unknown> }));
    for (const r of received) {
      assert.match(r.authorization, /^Bearer /);
      const token = r.authorization.slice('Bearer '.length);
      assert.equal(verifySignature(token, signedWith), true, 'verifySignature accepts the token with the signature secret');
      assert.equal(verifySignature(token, 'some other signature secret of the right length'), false);
      const claims = claimsOf(r.authorization);
      assert.equal(claims['payload_hash'], createHash('sha256').update(r.body).digest('hex'), 'payload_hash is the SHA-256 of the body sent');
      assert.equal(typeof claims['iat'], 'number');
      assert.equal(claims['application_id'], applicationId);
      assert.equal(r.path, '/vonage?tenant=7');
    }
    return received;
  }

  it('reports a completed request: the event of its channel, then the summary, with client_ref', async () => {
    const client = verify2();
    const { requestId } = await client.newRequest({ brand: 'Acme', workflow: [{ channel: 'sms', to: freshPhone() }], clientRef: 'order42' } as never);
    const code = await deliveredPin(h, pinIdOfVonageRequestId(requestId)!);
    assert.deepEqual(await callbacks(), [], 'nothing is reported while the request runs');
    assert.equal(await client.checkCode(requestId, code), 'completed');

    const got = await callbacks();
    const event = got.find((r) => r.json['type'] === 'event')!.json;
    const summary = got.find((r) => r.json['type'] === 'summary')!.json;
    assert.equal(got.length, 2);
    assert.deepEqual(Object.keys(event).sort(), ['channel', 'client_ref', 'finalized_at', 'request_id', 'status', 'triggered_at', 'type']);
    assert.equal(event['request_id'], requestId);
    assert.equal(event['channel'], 'sms');
    assert.equal(event['status'], 'completed');
    assert.equal(event['client_ref'], 'order42');
    assert.match(String(event['triggered_at']), ISO);
    assert.deepEqual(Object.keys(summary).sort(), ['channel_timeout', 'client_ref', 'finalized_at', 'request_id', 'status', 'submitted_at', 'type', 'workflow']);
    assert.equal(summary['status'], 'completed');
    assert.equal(summary['channel_timeout'], 180);
    assert.equal(summary['client_ref'], 'order42');
    assert.match(String(summary['submitted_at']), ISO);
    const workflow = summary['workflow'] as Array<Record<string, unknown>>;
    assert.equal(workflow.length, 1);
    assert.equal(workflow[0]!['channel'], 'sms');
    assert.equal(workflow[0]!['status'], 'completed');
    assert.match(String(workflow[0]!['initiated_at']), ISO);

    receiver.received.length = 0;
    assert.deepEqual(await callbacks(), [], 'a request is reported once');
  });

  it('reports a request failed by wrong codes, and the steps of a workflow (sent, completed, unused)', async () => {
    const client = verify2();
    const failed = await client.newRequest({ brand: 'Acme', workflow: [{ channel: 'sms', to: freshPhone() }] } as never);
    const code = await deliveredPin(h, pinIdOfVonageRequestId(failed.requestId)!);
    const wrong = code === '0000' ? '1111' : '0000';
    await client.checkCode(failed.requestId, wrong).catch(() => undefined);
    await client.checkCode(failed.requestId, wrong).catch(() => undefined);
    let got = await callbacks();
    assert.deepEqual(got.map((r) => `${String(r.json['type'])}:${String(r.json['status'])}`).sort(), ['event:failed', 'summary:failed']);
    assert.equal(got.find((r) => r.json['type'] === 'event')!.json['client_ref'], undefined, 'no client_ref when the start gave none');

    const to = freshPhone();
    const workflow = await client.newRequest({ brand: 'Acme', workflow: [{ channel: 'sms', to }, { channel: 'voice', to }, { channel: 'whatsapp', to }], channelTimeout: 300 } as never);
    const pinId = pinIdOfVonageRequestId(workflow.requestId)!;
    const workflowCode = await deliveredPin(h, pinId);
    assert.equal(await client.nextWorkflow(workflow.requestId), true);
    await h.node.workflows.runDue();
    receiver.received.length = 0;
    assert.equal(await client.checkCode(workflow.requestId, workflowCode), 'completed');
    got = await callbacks();
    const summary = got.find((r) => r.json['type'] === 'summary')!.json;
    assert.equal(summary['channel_timeout'], 300);
    assert.deepEqual((summary['workflow'] as Array<Record<string, unknown>>).map((s) => `${String(s['channel'])}:${String(s['status'])}:${s['initiated_at'] === undefined ? '-' : 'at'}`),
      ['sms:expired:at', 'voice:completed:at', 'whatsapp:unused:-']);
    assert.equal(got.find((r) => r.json['type'] === 'event')!.json['channel'], 'voice', 'the event names the channel the request ended on');

  });

  it('signs with a rotated secret from then on, and sends nothing once the callback URL is removed', async () => {
    const rotated = await h.request('POST', `/api/v1/vonage/applications/${applicationId}/signature-secret`);
    assert.equal(rotated.status, 200);
    const newSecret = rotated.body.signatureSecret as string;
    assert.notEqual(newSecret, secret);
    const shown = await h.request('GET', `/api/v1/vonage/applications/${applicationId}`);
    assert.equal(shown.body.signatureSecret, undefined, 'a secret is never shown again');
    assert.equal(shown.body.signatureSecretSet, true);

    const client = verify2();
    const first = await client.newRequest({ brand: 'Acme', workflow: [{ channel: 'sms', to: freshPhone() }] } as never);
    await client.checkCode(first.requestId, await deliveredPin(h, pinIdOfVonageRequestId(first.requestId)!));
    assert.equal((await callbacks(newSecret)).length, 2);

    receiver.received.length = 0;
    const removed = await h.request('PUT', `/api/v1/vonage/applications/${applicationId}`, { body: { callbackUrl: '' } });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.callbackUrl, null);
    const second = await client.newRequest({ brand: 'Acme', workflow: [{ channel: 'sms', to: freshPhone() }] } as never);
    await client.checkCode(second.requestId, await deliveredPin(h, pinIdOfVonageRequestId(second.requestId)!));
    assert.deepEqual(await callbacks(newSecret), []);
  });

  it('lists the account\'s Vonage applications and refuses a callback URL the address rules refuse', async () => {
    const list = await h.request('GET', '/api/v1/vonage/applications');
    assert.equal(list.status, 200);
    assert.ok((list.body.applications as Array<Record<string, unknown>>).some((a) => a['applicationId'] === applicationId && a['callbackUrl'] !== null));
    const bad = await h.request('PUT', `/api/v1/vonage/applications/${applicationId}`, { body: { callbackUrl: 'ftp://hooks.example.com/x' } });
    assert.equal(bad.status, 400);
    const short = await h.request('PUT', `/api/v1/vonage/applications/${applicationId}`, { body: { signatureSecret: 'short' } });
    assert.equal(short.status, 400);
    const other = await h.request('GET', '/api/v1/vonage/applications', { key: h.keys.b });
    assert.ok(!(other.body.applications as Array<Record<string, unknown>>).some((a) => a['applicationId'] === applicationId), 'another account sees none of them');
  });
  // Last: it moves the node's clock a day on, past the SDK's JWTs.
  it('reports an expired request', async () => {
    const client = verify2();
    const expiring = await client.newRequest({ brand: 'Acme', workflow: [{ channel: 'sms', to: freshPhone() }] } as never);
    await h.node.worker.drain();
    await callbacks();
    receiver.received.length = 0;
    h.clock.advance(24 * 3600_000);
    const got = await callbacks();
    assert.deepEqual(got.map((r) => `${String(r.json['type'])}:${String(r.json['status'])}:${String(r.json['request_id'])}`).sort(),
      [`event:expired:${expiring.requestId}`, `summary:expired:${expiring.requestId}`]);
  });
});
