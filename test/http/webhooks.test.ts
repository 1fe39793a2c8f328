import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseWebhookSecret } from '../../src/delivery/webhook/webhook-signature.js';
import { createHarness, type Harness } from '../support/harness.js';

describe('/api/v1/webhooks: subscriptions to PIN events', () => {
  let h: Harness;
  // http:// to loopback below needs the operator's opt-in to private addresses.
  before(async () => { h = await createHarness({ TWOFA_WEBHOOK_ALLOW_PRIVATE: 'true' }); });
  after(async () => { await h.close(); });

  it('creates, lists, gets, updates and deletes a subscription; the secret is shown only at creation', async () => {
    const created = await h.request('POST', '/api/v1/webhooks', { body: { url: 'https://hooks.example.com/twofa?token=abc', events: ['pin.sent', 'pin.failed'] } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.id as string;
    assert.match(id, /^[0-9A-F]{32}$/);
    assert.equal(created.body.url, 'https://hooks.example.com/twofa?token=abc');
    assert.deepEqual(created.body.events, ['pin.sent', 'pin.failed']);
    assert.equal(created.body.enabled, true);
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(parseWebhookSecret(created.body.secret).ok, true);

    const list = await h.request('GET', '/api/v1/webhooks');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.map((w: { id: string }) => w.id), [id]);
    assert.equal(list.body[0].secret, undefined, 'never listed');
    const got = await h.request('GET', `/api/v1/webhooks/${id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.secret, undefined, 'never shown again');
    assert.deepEqual({ ...got.body, secret: created.body.secret }, created.body);

    h.clock.advance(1000);
    const updated = await h.request('PUT', `/api/v1/webhooks/${id}`, { body: { events: ['*'], enabled: false } });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.deepEqual(updated.body.events, ['*']);
    assert.equal(updated.body.enabled, false);
    assert.equal(updated.body.url, 'https://hooks.example.com/twofa?token=abc', 'left out: kept');
    assert.equal(updated.body.updatedAt, created.body.updatedAt + 1000);
    const moved = await h.request('PUT', `/api/v1/webhooks/${id}`, { body: { url: 'https://other.example.com/hook', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.url, 'https://other.example.com/hook');
    assert.equal(moved.body.secret, undefined);

    const deleted = await h.request('DELETE', `/api/v1/webhooks/${id}`);
    assert.equal(deleted.status, 204);
    assert.equal((await h.request('GET', `/api/v1/webhooks/${id}`)).status, 404);
    assert.equal((await h.request('DELETE', `/api/v1/webhooks/${id}`)).status, 404);
    assert.deepEqual((await h.request('GET', '/api/v1/webhooks')).body, []);
  });

  it('accepts a secret of the caller\'s, * alone for every type, and http:// to loopback', async () => {
    const secret = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
    const created = await h.request('POST', '/api/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['pin.sent', '*', 'pin.sent'], secret, enabled: false } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(created.body.secret, secret);
    assert.deepEqual(created.body.events, ['*']);
    assert.equal(created.body.enabled, false);
    for (const url of ['http://localhost:8080/x', 'http://[::1]/x']) {
      assert.equal((await h.request('POST', '/api/v1/webhooks', { body: { url, events: ['pin.verified'] } })).status, 200, url);
    }
  });

  it('refuses bad URLs, event types and secrets with field errors', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ url: 'http://hooks.example.com/x', events: ['pin.sent'] }, 'url'],
      [{ url: 'ftp://hooks.example.com/x', events: ['pin.sent'] }, 'url'],
      [{ url: 'not a url', events: ['pin.sent'] }, 'url'],
      [{ url: 'https://user:pass@hooks.example.com/x', events: ['pin.sent'] }, 'url'],
      [{ url: 'https://hooks.example.com/x#frag', events: ['pin.sent'] }, 'url'],
      [{ url: 'https://hooks.example.com/x', events: [] }, 'events'],
      [{ url: 'https://hooks.example.com/x', events: ['pin.created'] }, 'events.0'],
      [{ url: 'https://hooks.example.com/x' }, 'events'],
      [{ events: ['pin.sent'] }, 'url'],
      [{ url: 'https://hooks.example.com/x', events: ['pin.sent'], secret: 'not-a-secret' }, 'secret'],
      [{ url: 'https://hooks.example.com/x', events: ['pin.sent'], secret: 'whsec_c2hvcnQ=' }, 'secret'],
    ];
    for (const [body, field] of cases) {
      const answer = await h.request('POST', '/api/v1/webhooks', { body });
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.requestError.serviceException.messageId, 'BAD_REQUEST');
      assert.ok(Object.keys(answer.body.requestError.serviceException.validationErrors ?? {}).includes(field), `${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
    }
    const created = await h.request('POST', '/api/v1/webhooks', { body: { url: 'https://hooks.example.com/ok', events: ['pin.sent'] } });
    const badUpdate = await h.request('PUT', `/api/v1/webhooks/${created.body.id}`, { body: { url: 'http://hooks.example.com/x' } });
    assert.equal(badUpdate.status, 400);
    assert.equal((await h.request('GET', `/api/v1/webhooks/${created.body.id}`)).body.url, 'https://hooks.example.com/ok', 'a refused update changes nothing');
  });

  it('keeps accounts apart, and needs 2fa:manage', async () => {
    const created = await h.request('POST', '/api/v1/webhooks', { body: { url: 'https://hooks.example.com/a', events: ['pin.sent'] } });
    const id = created.body.id as string;
    for (const [method, body] of [['GET', undefined], ['PUT', { enabled: false }], ['DELETE', undefined]] as const) {
      const answer = await h.request(method, `/api/v1/webhooks/${id}`, { key: h.keys.b, body });
      assert.equal(answer.status, 404, method);
      assert.equal(answer.body.requestError.serviceException.messageId, 'NOT_FOUND');
    }
    assert.ok(!(await h.request('GET', '/api/v1/webhooks', { key: h.keys.b })).body.some((w: { id: string }) => w.id === id));
    assert.equal((await h.request('GET', `/api/v1/webhooks/${id}`)).body.enabled, true, 'the other account changed nothing');
    assert.equal((await h.request('GET', '/api/v1/webhooks', { key: h.keys.sendOnly })).status, 403);
    assert.equal((await h.request('POST', '/api/v1/webhooks', { key: h.keys.sendOnly, body: { url: 'https://hooks.example.com/a', events: ['pin.sent'] } })).status, 403);
    assert.equal((await h.request('GET', '/api/v1/webhooks', { key: null })).status, 401);
  });

  it('stores the secret encrypted, never as given', async () => {
    const secret = 'whsec_Zm9yLXRoZS1hdC1yZXN0LWNoZWNrLTAxMjM0NTY3';
    const created = await h.request('POST', '/api/v1/webhooks', { body: { url: 'https://hooks.example.com/s', events: ['*'], secret } });
    const stored = await h.node.store.events.getSubscription((await accountOf(h)).accountId, created.body.id);
    assert.ok(stored);
    assert.ok(!stored.secretCiphertext.includes(secret) && !stored.secretCiphertext.includes(secret.slice(6)));
  });
});

async function accountOf(h: Harness) {
  const { authenticate } = await import('../../src/service/api-keys.js');
  const principal = await authenticate(h.node.store, `App ${h.keys.a}`);
  assert.ok(principal);
  return principal;
}
