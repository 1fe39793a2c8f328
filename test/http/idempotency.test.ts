// Idempotency-Key on every authenticated POST (src/http/plugins/idempotency.ts): a repeat gets the
// first answer without running again, per account, for TWOFA_IDEMPOTENCY_WINDOW.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { IDEMPOTENCY_ANSWER_MAX_BYTES } from '../../src/http/plugins/idempotency.js';
import { authenticate } from '../../src/service/api-keys.js';
import type { KyselyStore } from '../../src/store/kysely-store.js';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { assertEnvelope, forbid5xx, freshPhone, inboxFor } from '../support/http-assertions.js';

describe('Idempotency-Key', () => {
  let h: Harness;
  let sms: { applicationId: string; messageId: string };
  before(async () => {
    h = forbid5xx(await createHarness({ TWOFA_IDEMPOTENCY_WINDOW: '1h' }));
    sms = await createAppAndTemplate(h);
  });
  after(async () => { await h.close(); });

  let keys = 0;
  const freshKey = () => `key-${process.pid}-${(keys += 1)}-${Date.now()}`;
  const post = (path: string, body: unknown, key: string | undefined, apiKey?: string) =>
    h.request('POST', path, { body, ...(key !== undefined ? { headers: { 'idempotency-key': key } } : {}), ...(apiKey ? { key: apiKey } : {}) });
  const storedKeys = async () => Number((await (h.node.store as KyselyStore).db.selectFrom('idempotency_keys').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  it('a repeated send gets the same status and body, marked replayed, and makes one PIN and one delivery', async () => {
    const to = freshPhone();
    const key = freshKey();
    const first = await post('/2fa/2/pin', { ...sms, to }, key);
    assert.equal(first.status, 200);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await post('/2fa/2/pin', { ...sms, to }, key);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.headers['content-type'], first.headers['content-type']);
    await h.node.worker.drain();
    const inbox = await inboxFor(h, to);
    assert.equal(inbox.length, 1, 'one message delivered');
    const pins = await h.request('GET', `/api/v1/pins?to=${to}`);
    assert.equal(pins.body.pins.length, 1, 'one PIN stored');
  });

  it('a repeated wrong verify counts one attempt', async () => {
    const to = freshPhone();
    const sent = await post('/2fa/2/pin', { ...sms, to }, undefined);
    const pin = await deliveredPin(h, sent.body.pinId);
    const wrong = `${pin.slice(0, -1)}${(Number(pin.at(-1)) + 1) % 10}`;
    const key = freshKey();
    const first = await post(`/2fa/2/pin/${sent.body.pinId}/verify`, { pin: wrong }, key);
    const again = await post(`/2fa/2/pin/${sent.body.pinId}/verify`, { pin: wrong }, key);
    assert.equal(first.body.pinError, 'WRONG_PIN');
    assert.deepEqual(again.body, first.body);
    const unkeyed = await post(`/2fa/2/pin/${sent.body.pinId}/verify`, { pin: wrong }, undefined);
    assert.equal(unkeyed.body.attemptsRemaining, first.body.attemptsRemaining - 1, 'the repeat counted no attempt');
  });

  it('the same key with another body, or on another path, is a 422 and runs nothing', async () => {
    const key = freshKey();
    const to = freshPhone();
    assert.equal((await post('/2fa/2/pin', { ...sms, to }, key)).status, 200);
    const otherBody = await post('/2fa/2/pin', { ...sms, to: freshPhone() }, key);
    assertEnvelope(otherBody, 422, 'UNPROCESSABLE_ENTITY');
    const otherPath = await post('/2fa/2/pin/voice', { ...sms, to }, key);
    assertEnvelope(otherPath, 422, 'UNPROCESSABLE_ENTITY');
    await h.node.worker.drain();
    assert.equal((await inboxFor(h, to)).length, 1);
  });

  it('concurrent repeats run the request once: the others get 409 or the replayed answer', async () => {
    const to = freshPhone();
    const key = freshKey();
    const answers = await Promise.all(Array.from({ length: 8 }, () => post('/2fa/2/pin', { ...sms, to }, key)));
    const ok = answers.filter((a) => a.status === 200);
    assert.ok(ok.length >= 1);
    assert.equal(new Set(ok.map((a) => a.body.pinId)).size, 1, 'one PIN id in every 200');
    for (const a of answers.filter((x) => x.status !== 200)) assertEnvelope(a, 409, 'CONFLICT');
    await h.node.worker.drain();
    assert.equal((await inboxFor(h, to)).length, 1, 'one message delivered');
  });

  it('keys belong to an account: another account with the same key runs its own request', async () => {
    const key = freshKey();
    const other = await createAppAndTemplate(h, { key: h.keys.b });
    const mine = await post('/2fa/2/pin', { ...sms, to: freshPhone() }, key);
    const theirs = await post('/2fa/2/pin', { ...other, to: freshPhone() }, key, h.keys.b);
    assert.equal(mine.status, 200);
    assert.equal(theirs.status, 200);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.notEqual(theirs.body.pinId, mine.body.pinId);
  });

  it('a key that is empty, longer than 255 characters or not printable ASCII is a 400, and nothing runs', async () => {
    for (const bad of ['', 'x'.repeat(256), 'tab\there']) {
      const to = freshPhone();
      const res = await post('/2fa/2/pin', { ...sms, to }, bad);
      assertEnvelope(res, 400, 'BAD_REQUEST');
      await h.node.worker.drain();
      assert.equal((await inboxFor(h, to)).length, 0);
    }
    assert.equal((await post('/2fa/2/pin', { ...sms, to: freshPhone() }, 'x'.repeat(255))).status, 200);
  });

  it('the IETF draft\'s quoted form ("key", a Structured Field string) names the same key as the bare form', async () => {
    const key = freshKey();
    const body = { ...sms, to: freshPhone() };
    const bare = await post('/2fa/2/pin', body, key);
    const quoted = await post('/2fa/2/pin', body, `"${key}"`);
    assert.equal(quoted.headers['idempotent-replayed'], 'true');
    assert.deepEqual(quoted.body, bare.body);
    assertEnvelope(await post('/2fa/2/pin', body, '""'), 400, 'BAD_REQUEST');
  });

  it('a send key posting a 30 KB applicationId with a new key each time is refused (400) and stores nothing', async () => {
    const before = await storedKeys();
    for (let i = 0; i < 50; i++) {
      const refused = await post('/2fa/2/pin', { applicationId: `${i}${'A'.repeat(30_000)}`, messageId: sms.messageId, to: freshPhone() }, freshKey(), h.keys.sendOnly);
      assertEnvelope(refused, 400, 'BAD_REQUEST');
    }
    assert.equal(await storedKeys(), before);
  });

  it('a request without the header stores nothing', async () => {
    const before = await storedKeys();
    assert.equal((await post('/2fa/2/pin', { ...sms, to: freshPhone() }, undefined)).status, 200);
    assert.equal(await storedKeys(), before);
  });

  it('a created API key is replayed to its account, but never stored in clear', async () => {
    const key = freshKey();
    const first = await post('/api/v1/keys', { label: 'ci', scopes: ['2fa:pin:send'] }, key);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const again = await post('/api/v1/keys', { label: 'ci', scopes: ['2fa:pin:send'] }, key);
    assert.deepEqual(again.body, first.body, 'one key created');
    assert.equal(again.headers['cache-control'], 'no-store');
    const rows = await (h.node.store as KyselyStore).db.selectFrom('idempotency_keys').select(['id', 'answer']).execute();
    for (const row of rows) {
      assert.ok(!(row.answer ?? '').includes(first.body.key), 'the key is not in the table');
      assert.ok(!row.id.includes(key), 'nor is the idempotency key itself');
    }
  });

  it('a 429 is not kept: the same request with the same key runs again once the limit allows it', async () => {
    const limited = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '1/1m' } });
    const to = freshPhone();
    assert.equal((await post('/2fa/2/pin', { ...limited, to }, undefined)).status, 200);
    const key = freshKey();
    assert.equal((await post('/2fa/2/pin', { ...limited, to }, key)).status, 429);
    h.clock.advance(61_000);
    const later = await post('/2fa/2/pin', { ...limited, to }, key);
    assert.equal(later.status, 200);
    assert.equal(later.headers['idempotent-replayed'], undefined);
  });

  it('after the window the key is purged and a repeat runs again', async () => {
    const key = freshKey();
    const body = { ...sms, to: freshPhone() };
    const first = await post('/2fa/2/pin', body, key);
    const count = await storedKeys();
    h.clock.advance(3_600_001);
    await h.node.purge();
    assert.ok(await storedKeys() < count, 'the purge deleted the key');
    const later = await post('/2fa/2/pin', body, key);
    assert.equal(later.status, 200);
    assert.notEqual(later.body.pinId, first.body.pinId);
  });
});

describe('Idempotency-Key: what one account stores is bounded, whatever it sends', () => {
  const MAX_KEYS = 20;
  /** docs/security.md: a stored answer (encrypted, base64) takes at most 6 KiB. */
  const STORED_ANSWER_MAX = 6144;
  let h: Harness;
  let sms: { applicationId: string; messageId: string };
  let accountId: string;
  before(async () => {
    h = forbid5xx(await createHarness({ TWOFA_IDEMPOTENCY_MAX_KEYS: String(MAX_KEYS) }));
    sms = await createAppAndTemplate(h);
    accountId = (await authenticate(h.node.store, `App ${h.keys.a}`))!.accountId;
  });
  after(async () => { await h.close(); });

  let keys = 0;
  const freshKey = () => `bounded-${(keys += 1)}`;
  const post = (path: string, body: unknown, key: string, apiKey?: string) =>
    h.request('POST', path, { body, headers: { 'idempotency-key': key }, ...(apiKey ? { key: apiKey } : {}) });
  const stored = async () => {
    const rows = await (h.node.store as KyselyStore).db.selectFrom('idempotency_keys').select(['answer']).where('account_id', '=', accountId).execute();
    return { rows: rows.length, longest: Math.max(0, ...rows.map((r) => (r.answer ?? '').length)), bytes: rows.reduce((n, r) => n + (r.answer ?? '').length, 0) };
  };
  const emailTemplates = async () => Number((await (h.node.store as KyselyStore).db.selectFrom('email_templates').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);

  it(`a success whose answer is over ${IDEMPOTENCY_ANSWER_MAX_BYTES} bytes is kept without it: a repeat runs nothing and is answered 409`, async () => {
    const key = freshKey();
    const body = { name: 'large', subject: 'Your code {{pin}}', html: `<p>{{pin}}</p>${'x'.repeat(30_000)}` };
    const first = await post('/api/v1/email-templates', body, key);
    assert.equal(first.status, 200, JSON.stringify(first.body).slice(0, 300));
    const templates = await emailTemplates();
    const again = await post('/api/v1/email-templates', body, key);
    assertEnvelope(again, 409, 'CONFLICT');
    assert.equal(await emailTemplates(), templates, 'the template was made once');
    assert.ok((await stored()).longest <= STORED_ANSWER_MAX);
  });

  it(`new keys beyond TWOFA_IDEMPOTENCY_MAX_KEYS (${MAX_KEYS}) are refused with 429 and Retry-After; the keys held still replay; the stored answers stay within ${MAX_KEYS} × 6 KiB`, async () => {
    const held: Array<{ key: string; body: unknown; answer: unknown }> = [];
    let refused = 0;
    for (let i = 0; i < 3 * MAX_KEYS; i++) {
      const key = freshKey();
      // Large answers of every kind a key of the account can get: a large success, a refusal echoing a large value, a send.
      const [path, body, apiKey] = i % 3 === 0 ? ['/api/v1/email-templates', { name: `t${i}`, subject: '{{pin}}', html: `{{pin}}${'y'.repeat(30_000)}` }, undefined] as const
        : i % 3 === 1 ? ['/2fa/2/pin', { ...sms, to: freshPhone(), placeholders: { [`p${'z'.repeat(20_000)}`]: 'v' } }, h.keys.sendOnly] as const
          : ['/2fa/2/pin', { ...sms, to: freshPhone() }, h.keys.sendOnly] as const;
      const answer = await post(path, body, key, apiKey);
      if (answer.status === 429) {
        refused++;
        assertEnvelope(answer, 429, 'TOO_MANY_REQUESTS');
        assert.ok(Number(answer.headers['retry-after']) > 0);
      } else if (path === '/2fa/2/pin' && answer.status === 200) {
        held.push({ key, body, answer: answer.body });
      }
    }
    assert.ok(refused > 0, 'the account reached its keys');
    const grown = await stored();
    assert.ok(grown.rows <= MAX_KEYS, `${grown.rows} keys stored`);
    assert.ok(grown.longest <= STORED_ANSWER_MAX, `an answer of ${grown.longest} bytes stored`);
    assert.ok(grown.bytes <= MAX_KEYS * STORED_ANSWER_MAX, `${grown.bytes} bytes of answers stored`);
    const [first] = held;
    assert.ok(first, 'some sends were answered and kept');
    const replayed = await post('/2fa/2/pin', first.body, first.key, h.keys.sendOnly);
    assert.equal(replayed.status, 200, 'a key the account holds is answered at the cap');
    assert.deepEqual(replayed.body, first.answer);
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
  });
});
