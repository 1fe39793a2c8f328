// Failed authentication is slowed down: past TWOFA_AUTH_FAILURE_LIMIT failures from one client
// address, or for one presented key prefix, the answer is 429 with Retry-After, given before the key
// is looked up. A valid key from another address keeps working, and the owner of a key being guessed
// at finds it in its audit log.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { apiKeyPrefix } from '../../src/service/api-keys.js';
import { createHarness, type Harness } from '../support/harness.js';

const WINDOW_MS = 60_000;
const LIMIT = 5;

describe('throttling failed authentication (TWOFA_AUTH_FAILURE_LIMIT)', () => {
  let h: Harness;
  let lookups = 0;

  before(async () => {
    h = await createHarness({ TWOFA_AUTH_FAILURE_LIMIT: `${LIMIT}/1m` });
    const store = h.node.store;
    const find = store.findApiKeyByHash.bind(store);
    store.findApiKeyByHash = (hash) => {
      lookups += 1;
      return find(hash);
    };
  });
  after(async () => { await h.close(); });
  // Each test starts with every window of the previous one over.
  beforeEach(() => h.clock.advance(WINDOW_MS + 1));

  async function call(key: string, from: string) {
    const answer = await h.node.app.inject({ method: 'GET', url: '/2fa/2/applications', remoteAddress: from, headers: { authorization: `App ${key}` } });
    return { status: answer.statusCode, retryAfter: answer.headers['retry-after'], body: answer.json() as { requestError?: { serviceException: { messageId: string } } } };
  }
  const randomKey = (prefix = 'tfa_') => `${prefix}${randomBytes(32).toString('base64url')}`;

  it('answers 429 with Retry-After past the limit from one address, without looking the key up', async () => {
    const attacker = '203.0.113.10';
    for (let i = 0; i < LIMIT; i += 1) assert.equal((await call(randomKey(), attacker)).status, 401, `failure ${i + 1}`);
    const before = lookups;
    const refused = await call(randomKey(), attacker);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.requestError?.serviceException.messageId, 'TOO_MANY_REQUESTS');
    const seconds = Number(refused.retryAfter);
    assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= WINDOW_MS / 1000, `Retry-After ${String(refused.retryAfter)}`);
    assert.equal((await call(h.keys.a, attacker)).status, 429, 'even a valid key, from that address');
    assert.equal(lookups, before, 'no key was looked up while throttled');

    assert.equal((await call(h.keys.a, '198.51.100.20')).status, 200, 'a valid key from another address is unaffected');
    assert.equal((await call(randomKey(), '198.51.100.21')).status, 401, 'another address is not throttled');

    h.clock.advance(seconds * 1000);
    assert.equal((await call(h.keys.a, attacker)).status, 200, 'after Retry-After the address is served again');
  });

  it('counts an IPv6 client by its /64', async () => {
    for (let i = 0; i < LIMIT; i += 1) assert.equal((await call(randomKey(), `2001:db8:7:1::${i + 1}`)).status, 401);
    assert.equal((await call(randomKey(), '2001:db8:7:1:ffff::9')).status, 429);
    assert.equal((await call(h.keys.a, '2001:db8:7:2::1')).status, 200, 'another /64');
  });

  it('throttles guesses at one key prefix from many addresses, never its owner; the owner\'s audit log says so', async () => {
    const prefix = apiKeyPrefix(h.keys.a);
    const guess = () => `${prefix}${randomBytes(32).toString('base64url')}`;
    for (let i = 0; i < LIMIT; i += 1) assert.equal((await call(guess(), `192.0.2.${i + 1}`)).status, 401);
    const refused = await call(guess(), '192.0.2.1');
    assert.equal(refused.status, 429, 'an address that already failed, guessing at the same prefix');
    assert.ok(Number(refused.retryAfter) >= 1);
    assert.equal((await call(h.keys.a, '198.51.100.30')).status, 200, 'the owner, from elsewhere, with the right key');
    assert.equal((await call(randomKey(), '192.0.2.2')).status, 401, 'another prefix from a guessing address is only counted');

    const audit = await h.request('GET', '/api/v1/audit?event=auth.throttled');
    assert.equal(audit.status, 200);
    const entries = audit.body.entries as { event: string; sourceIp: string | null; reason: string | null }[];
    assert.equal(entries.length, 1, 'reported once per throttled period');
    assert.equal(entries[0]!.sourceIp, '192.0.2.1');
    assert.match(entries[0]!.reason ?? '', new RegExp(`a key starting ${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.ok(!(entries[0]!.reason ?? '').includes(h.keys.a), 'never the key');
    const other = await h.request('GET', '/api/v1/audit?event=auth.throttled', { key: h.keys.b });
    assert.deepEqual(other.body.entries, [], 'only the account owning the prefix');

    const metrics = await h.request('GET', '/metrics', { key: null });
    assert.match(metrics.body as string, /twofa_rate_limit_refusals_total\{[^}]*limit="auth_failures_prefix"[^}]*\} [1-9]/);
  });

  it('does not count requests that present no credentials', async () => {
    for (let i = 0; i < LIMIT * 2; i += 1) {
      const answer = await h.node.app.inject({ method: 'GET', url: '/2fa/2/applications', remoteAddress: '203.0.113.40' });
      assert.equal(answer.statusCode, 401);
    }
    assert.equal((await call(h.keys.a, '203.0.113.40')).status, 200);
  });
});
