// Prelude Verify webhooks: a create's metadata (correlation_id) answered by its check, and its
// options.callback_url receiving verify.authentication, verify.attempt and verify.delivery_status,
// delivered by the event worker to a real HTTP receiver on 127.0.0.1, through Prelude's official SDK.
// With TWOFA_TEST_DATABASE=postgres the node runs on PostgreSQL.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import Prelude from '@prelude.so/sdk';
import { pinIdOfPreludeId } from '../../src/domain/prelude-ids.js';
import { authenticate } from '../../src/service/api-keys.js';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { freshPhone } from '../support/http-assertions.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

interface Webhook { id: string; type: string; created_at: string; payload: Record<string, unknown> }

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('Prelude Verify metadata and webhooks (options.callback_url)', () => {
  let h: Harness;
  let client: Prelude;
  let receiver: WebhookReceiver;
  let accountId: string;

  before(async () => {
    // http:// to the receiver on loopback needs the operator's opt-in to private addresses.
    h = await createHarness({ TWOFA_WEBHOOK_ALLOW_PRIVATE: 'true' });
    await h.node.app.listen({ port: 0, host: '127.0.0.1' });
    client = new Prelude({ apiToken: h.keys.a, baseURL: `http://127.0.0.1:${(h.node.app.server.address() as AddressInfo).port}` });
    receiver = await startWebhookReceiver();
    const app = await createAppAndTemplate(h, {});
    assert.equal((await h.request('PUT', '/api/v1/prelude/settings', { body: { applicationId: app.applicationId } })).status, 200);
    accountId = (await authenticate(h.node.store, `App ${h.keys.a}`))!.accountId;
  });
  after(async () => {
    await h.close();
    await receiver.close();
  });
  beforeEach(() => { receiver.received.length = 0; });

  /** Runs the deliveries, the sweep and the event deliveries; answers the webhooks received at `path`. */
  async function webhooksAt(path: string): Promise<Webhook[]> {
    await h.node.worker.drain();
    await h.node.events.drain();
    return receiver.received.filter((r) => r.path === path).map((r) => {
      assert.equal(r.headers['content-type'], 'application/json');
      return JSON.parse(r.body) as Webhook;
    });
  }

  it('answers the metadata in the check, and sends verify.authentication, verify.attempt and verify.delivery_status', async () => {
    const target = { type: 'phone_number' as const, value: `+${freshPhone()}` };
    const created = await client.verification.create({ target, metadata: { correlation_id: 'signup-7' }, options: { callback_url: `${receiver.base}/prelude?k=1` } });
    const pinId = pinIdOfPreludeId(created.id)!;
    const code = await deliveredPin(h, pinId);

    let hooks = await webhooksAt('/prelude?k=1');
    assert.deepEqual(hooks.map((w) => w.type).sort(), ['verify.attempt', 'verify.authentication']);
    for (const hook of hooks) {
      assert.deepEqual(Object.keys(hook).sort(), ['created_at', 'id', 'payload', 'type']);
      assert.match(hook.id, /^evt_[0-9a-z]{26}$/);
      assert.match(hook.created_at, ISO);
      assert.equal(hook.payload['verification_id'], created.id);
      assert.deepEqual(hook.payload['metadata'], { correlation_id: 'signup-7' });
      assert.equal((hook.payload['target'] as Record<string, unknown>)['type'], 'phone_number');
      assert.ok(!String((hook.payload['target'] as Record<string, unknown>)['value']).includes(target.value.slice(-4)), 'the number is masked');
      assert.match(String(hook.payload['time']), ISO);
    }
    const attempt = hooks.find((w) => w.type === 'verify.attempt')!;
    assert.match(String(attempt.payload['id']), /^att_[0-9a-z]{26}$/);
    assert.equal(attempt.payload['channel'], 'sms');

    // The carrier's receipt of the message.
    const pin = (await h.node.store.getPin(accountId, pinId))!;
    receiver.received.length = 0;
    await h.node.receipts.receive({ transport: pin.deliveryTransport!, providerMessageId: pin.providerMessageId!, status: 'delivered', at: h.clock.now });
    hooks = await webhooksAt('/prelude?k=1');
    assert.deepEqual(hooks.map((w) => `${w.type}:${String(w.payload['status'])}`), ['verify.delivery_status:delivered']);

    const wrong = await client.verification.check({ target, code: code === '0000' ? '1111' : '0000' });
    assert.equal(wrong.status, 'failure');
    assert.deepEqual(wrong.metadata, { correlation_id: 'signup-7' });
    const right = await client.verification.check({ target, code });
    assert.equal(right.status, 'success');
    assert.deepEqual(right.metadata, { correlation_id: 'signup-7' });
    receiver.received.length = 0;
    assert.deepEqual(await webhooksAt('/prelude?k=1'), [], 'each webhook is sent once');
  });

  it('sends a verify.attempt for a retry\'s message, and none for a create without callback_url', async () => {
    const target = { type: 'phone_number' as const, value: `+${freshPhone()}` };
    await client.verification.create({ target, options: { callback_url: `${receiver.base}/retry` } });
    assert.equal((await webhooksAt('/retry')).length, 2);
    receiver.received.length = 0;
    h.clock.advance(1000);
    const retried = await client.verification.create({ target });
    assert.equal(retried.status, 'retry');
    assert.deepEqual((await webhooksAt('/retry')).map((w) => w.type), ['verify.attempt'], 'the verification keeps the callback_url of its first create');

    const plain = await client.verification.create({ target: { type: 'phone_number', value: `+${freshPhone()}` } });
    await webhooksAt('/none');
    assert.equal(receiver.received.length, 1, 'only the retry\'s attempt above');
    assert.equal((await client.verification.check({ target, code: '000000000' })).metadata, undefined, 'no metadata when the create gave none');
    assert.ok(plain.id);
  });

  it('refuses a callback_url the address rules refuse (invalid_callback_url)', async () => {
    for (const url of ['ftp://hooks.example.com/x', 'http://user:pw@127.0.0.1/x']) {
      const err = await client.verification.create({ target: { type: 'phone_number', value: `+${freshPhone()}` }, options: { callback_url: url } }).then(() => undefined, (e: unknown) => e as { status: number; error: { code: string } });
      assert.equal(err?.status, 400);
      assert.equal(err.error.code, 'invalid_callback_url');
    }
  });
});
