// T21 api-key-handling: missing, malformed, unknown, revoked and other-account keys; a key in the
// query string; scopes; keys at rest; the lookup's path. Keys are looked up by their SHA-256 digest
// (an index lookup on a fixed-length value), so how much of a key is right changes nothing observable.
// Standards: ASVS 4.0.3 13.1.3, 2.10.4, 7.1.1; ASVS 5.0 14.2.1, 13.3.1, 16.2.5, 11.2.4.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it, mock } from 'node:test';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';
import { injector } from './support/in-process.js';
import { createResults, findSecrets } from './support/results.js';

const results = createResults('api-keys', {
  tests: ['T21'],
  standards: ['ASVS 4.0.3 13.1.3', 'ASVS 4.0.3 2.10.4', 'ASVS 4.0.3 7.1.1', 'ASVS 5.0 14.2.1', 'ASVS 5.0 16.2.5', 'ASVS 5.0 11.2.4'],
});

/** Every method of an object, its prototypes' included (a store is a class instance). */
function methodNames(object: object): string[] {
  const names = new Set<string>();
  for (let o: object | null = object; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) if (name !== 'constructor' && typeof (object as Record<string, unknown>)[name] === 'function') names.add(name);
  }
  return [...names];
}

describe('API key handling', () => {
  let h: Harness;
  let inject: ReturnType<typeof injector>;
  let app: { applicationId: string; messageId: string };

  before(async () => {
    // These tests look at what a bad key is answered and which lookups it makes, from one address
    // more often than the throttle allows (test/http/auth-throttle.test.ts): it is set out of their way.
    h = await createHarness({ TWOFA_AUTH_FAILURE_LIMIT: '100000/1m' });
    inject = injector(h, results);
    app = await createAppAndTemplate(h);
  });
  after(async () => {
    results.save();
    await h?.close();
  });

  it('T21: missing, malformed, unknown, revoked and query-string keys all get one 401 body that tells nothing', async () => {
    const { createApiKey } = await import('../../src/service/api-keys.js');
    const revoked = await createApiKey(h.node.store, { accountName: 'account-a', now: h.clock.now });
    await h.node.store.revokeApiKey(revoked.record.id, h.clock.now);
    const attempts: [string, Record<string, string>, string][] = [
      ['none', {}, '/2fa/2/applications'],
      ['empty', { authorization: '' }, '/2fa/2/applications'],
      ['scheme only', { authorization: 'App' }, '/2fa/2/applications'],
      ['basic', { authorization: `Basic ${Buffer.from(`x:${h.keys.a}`).toString('base64')}` }, '/2fa/2/applications'],
      ['unknown', { authorization: 'App tfa_thisisnotakeyatall0000000000000000000000' }, '/2fa/2/applications'],
      ['prefix of a real key', { authorization: `App ${h.keys.a.slice(0, -1)}` }, '/2fa/2/applications'],
      ['real key plus one', { authorization: `App ${h.keys.a}x` }, '/2fa/2/applications'],
      ['two keys', { authorization: `App ${h.keys.a} ${h.keys.b}` }, '/2fa/2/applications'],
      ['revoked', { authorization: `App ${revoked.key}` }, '/2fa/2/applications'],
      ['key in the query string', {}, `/2fa/2/applications?apiKey=${encodeURIComponent(h.keys.a)}&key=${encodeURIComponent(h.keys.a)}&authorization=${encodeURIComponent(`App ${h.keys.a}`)}`],
      ['control characters', { authorization: 'App \u0001\u0002' }, '/2fa/2/applications'],
    ];
    const bodies = new Set<string>();
    for (const [label, headers, url] of attempts) {
      const r = await inject('GET', url, { key: null, headers });
      results.add('badKeysTried');
      assert.equal(r.status, 401, label);
      bodies.add(r.text);
    }
    // Another account's key: that account's (empty) view, never the other's data.
    const cross = await inject('GET', `/2fa/2/applications/${app.applicationId}`, { key: h.keys.b });
    results.check('T21', bodies.size === 1 && cross.status === 404, `${attempts.length} kinds of missing/bad/revoked/query-string keys → one identical 401; other account → 404`);
  });

  it('T21: scopes: a send-only key cannot manage applications, security settings or the audit log', async () => {
    for (const [method, url, body] of [
      ['POST', '/2fa/2/applications', { name: 'x' }],
      ['GET', `/api/v1/applications/${app.applicationId}/security`, undefined],
      ['PUT', `/api/v1/applications/${app.applicationId}/security`, { enabled: true }],
      ['GET', '/api/v1/audit', undefined],
    ] as const) {
      const r = await inject(method, url, { key: h.keys.sendOnly, ...(body ? { body } : {}) });
      results.add('scopeChecks');
      assert.equal(r.status, 403, `${method} ${url}`);
    }
    const security = await inject('GET', `/api/v1/applications/${app.applicationId}/security`);
    assert.equal(security.body.settings.enabled, false, 'the guards are off until turned on');
  });

  it('T21: keys are stored only as SHA-256 digests and never logged', async () => {
    const files = fs.readdirSync(h.dir).filter((f) => f.startsWith('twofa.db')).map((f) => ({ where: f, text: fs.readFileSync(`${h.dir}/${f}`) }));
    const needles = [{ label: 'key a', value: h.keys.a }, { label: 'key b', value: h.keys.b }, { label: 'send-only key', value: h.keys.sendOnly }];
    const onDisk = findSecrets(files, needles);
    const inLogs = findSecrets([{ where: 'logs', text: h.logs.join('\n') }], needles);
    results.add('secretsInDatabase', onDisk.length);
    results.add('secretsInLogs', inLogs.length);
    assert.deepEqual(onDisk, []);
    assert.deepEqual(inLogs, []);
    const { hashApiKey } = await import('../../src/service/api-keys.js');
    assert.ok(findSecrets(files, [{ label: 'digest', value: hashApiKey(h.keys.a) }]).length > 0, 'the digest is what is stored (the scan can find things)');
  });

  it('T21: a key that is right but for its last character takes the path of a random one: one lookup, by the digest of the whole key', async () => {
    // What the store is asked about keys, per request: a key is never looked up by its prefix, never
    // compared character by character, so a nearly right key cannot be told from a random one by what
    // it costs. (The wall-clock figure of the two is in the benchmark: bench/key-and-pin-timing.ts.)
    const store = h.node.store as unknown as Record<string, (...args: unknown[]) => unknown>;
    const keyMethods = methodNames(store).filter((name) => /apikey/i.test(name));
    assert.ok(keyMethods.includes('findApiKeyByHash'), `the store's key methods: ${keyMethods.join(', ')}`);
    const asked: string[] = [];
    const { hashApiKey } = await import('../../src/service/api-keys.js');
    const mocks = keyMethods.map((name) => {
      const original = store[name]!;
      return mock.method(store, name, function (this: unknown, ...args: unknown[]) {
        asked.push(`${name}(${args.map((a) => (typeof a === 'string' && /^[0-9a-f]{64}$/.test(a) ? `digest:${a}` : typeof a)).join(', ')})`);
        return original.apply(this, args);
      });
    });
    const keys: [string, string][] = [
      ['right but for its last character', `${h.keys.a.slice(0, -1)}${h.keys.a.endsWith('A') ? 'B' : 'A'}`],
      ['the real key without its last character', h.keys.a.slice(0, -1)],
      ['the real key plus one character', `${h.keys.a}x`],
      ['random, of the same length', `tfa_${'Z'.repeat(h.keys.a.length - 4)}`],
      ['random and short', 'tfa_Z'],
    ];
    const paths = new Map<string, string>();
    try {
      for (const [label, key] of keys) {
        asked.length = 0;
        const r = await inject('GET', '/2fa/2/applications', { key: null, headers: { authorization: `App ${key}` } });
        results.add('badKeysTried');
        assert.equal(r.status, 401, label);
        assert.deepEqual(asked, [`findApiKeyByHash(digest:${hashApiKey(key)})`], `${label}: one lookup by the digest of the whole key`);
        paths.set(label, asked.join(' → ').replace(/digest:[0-9a-f]{64}/g, 'digest'));
      }
    } finally {
      for (const m of mocks) m.mock.restore();
    }
    const distinct = new Set(paths.values());
    results.check('T21', distinct.size === 1, `${keys.length} bad keys from nearly right to random → the same store calls: ${[...distinct].join(' | ')}`);
  });

  it('T21: a listed key shows at most a quarter of itself (8 characters of a 32-character bootstrap key)', async () => {
    const bootstrap = 'harness-bootstrap-key-0123456789';
    const me = await h.request('GET', '/api/v1/me', { key: bootstrap });
    assert.equal(me.status, 200);
    assert.equal(me.body.key.prefix, bootstrap.slice(0, 8));
    const listed = await h.request('GET', '/api/v1/keys');
    assert.equal(listed.status, 200);
    for (const key of listed.body.keys as { prefix: string }[]) assert.ok(key.prefix.length <= 12 && key.prefix.length * 4 <= h.keys.a.length, key.prefix);
    assert.equal(me.body.key.prefix.length * 4 <= bootstrap.length, true);
  });
});
