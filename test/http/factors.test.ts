// twofa's own API for TOTP factors (/api/v1/applications/{appId}/entities/...), through the typed
// client against the in-process server (every answer held against the OpenAPI document by the
// harness), on SQLite and, under TWOFA_TEST_DATABASE=postgres, PostgreSQL. Codes come from otplib
// (an independent implementation) for the harness's clock, which the test moves.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generate } from 'otplib';
import { createTwofaClient, TwofaApiError, type TwofaClient } from '../../src/client/index.js';
import { reencryptFactorSecrets } from '../../src/service/factors.js';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import { createHarness, HARNESS_SECRET, type Harness } from '../support/harness.js';

describe('TOTP factors through /api/v1 and the typed client', () => {
  let h: Harness;
  let client: TwofaClient;
  let appId: string;
  let seq = 0;
  const user = () => `user-${Date.now().toString(36)}-${(seq += 1)}`;
  const codeOf = (secret: string, offsetSteps = 0) => generate({ secret, epoch: Math.floor(h.clock.now / 1000) + offsetSteps * 30 });
  const nextStep = () => h.clock.advance(30_000 - (h.clock.now % 30_000));
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  async function rejects(promise: Promise<unknown>, status: number): Promise<TwofaApiError> {
    const err = await promise.then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof TwofaApiError, `a TwofaApiError, not ${String(err)}`);
    assert.equal(err.status, status, err.text);
    return err;
  }

  before(async () => {
    h = await createHarness();
    // The typed client over the harness's in-process server: each request goes through h.request,
    // whose answers are checked against the OpenAPI document.
    client = createTwofaClient({
      baseUrl: 'http://twofa.test', apiKey: h.keys.a,
      fetch: (input, init) => fetchAs(h, h.keys.a, input, init),
    });
    appId = (await client.applications.create({ name: 'Factors' })).applicationId;
  });
  after(async () => { await h.close(); });

  it('makes a factor whose seed and URI are answered once, verifies it with a code, challenges it, refuses the replayed code', async () => {
    const identity = user();
    const made = await client.factors.create(appId, identity, { type: 'totp', friendlyName: 'ann@example.com' });
    assert.match(made.sid, /^YF[0-9a-f]{32}$/);
    assert.equal(made.status, 'unverified');
    assert.match(made.secret, /^[A-Z2-7]{32}$/);
    assert.match(made.uri, /^otpauth:\/\/totp\/Factors:ann%40example.com\?secret=[A-Z2-7]{32}&issuer=Factors&algorithm=SHA1&digits=6&period=30$/);
    const listed = await client.factors.list(appId, identity);
    assert.deepEqual(listed.map((f) => f.sid), [made.sid]);
    assert.equal((listed[0] as Record<string, unknown>)['secret'], undefined, 'the seed is never listed');

    nextStep();
    const code = await codeOf(made.secret);
    assert.equal((await client.factors.verify(appId, identity, made.sid, wrong(code))).status, 'unverified');
    assert.equal((await client.factors.verify(appId, identity, made.sid, code)).status, 'verified');

    const replayed = await client.factors.challenge(appId, identity, { factorSid: made.sid, code });
    assert.equal(replayed.status, 'pending', 'the code that verified the factor does not sign in');
    assert.equal(replayed.attemptsLeft, 4);
    nextStep();
    const approved = await client.factors.answerChallenge(appId, identity, replayed.sid, await codeOf(made.secret));
    assert.equal(approved.status, 'approved');
    assert.equal((await client.factors.getChallenge(appId, identity, replayed.sid)).status, 'approved');
    await rejects(client.factors.answerChallenge(appId, identity, replayed.sid, await codeOf(made.secret)), 403);
  });

  it('denies a challenge at its fifth wrong code, refuses more (429), and the security panel counts it', async () => {
    const identity = user();
    const made = await client.factors.create(appId, identity, { type: 'totp', friendlyName: 'phone', config: { codeLength: 8, skew: 0 } });
    assert.deepEqual(made.config, { alg: 'sha1', time_step: 30, code_length: 8, skew: 0 });
    const code = await generate({ secret: made.secret, epoch: Math.floor(h.clock.now / 1000), digits: 8 });
    assert.equal((await client.factors.verify(appId, identity, made.sid, code)).status, 'verified');
    nextStep();
    const before = (await client.security.get(appId)).totp;
    const challenge = await client.factors.challenge(appId, identity, { factorSid: made.sid });
    const statuses = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await client.factors.answerChallenge(appId, identity, challenge.sid, '00000000')).status);
    assert.deepEqual(statuses, ['pending', 'pending', 'pending', 'pending', 'denied']);
    const refused = await rejects(client.factors.answerChallenge(appId, identity, challenge.sid, '00000000'), 429);
    assert.equal(refused.messageId, 'TOO_MANY_REQUESTS');
    const after = (await client.security.get(appId)).totp;
    assert.equal(after.deniedChallenges, before.deniedChallenges + 1);
    assert.equal(after.wrongChallengeCodes, before.wrongChallengeCodes + 5);
    assert.equal(after.codesPerWindow, 10);
    assert.ok(after.successProbabilityPerFactorPerDay > 0 && after.successProbabilityPerFactorPerDay < 0.001, String(after.successProbabilityPerFactorPerDay));
  });

  it('locks a factor\'s verification after five wrong codes, shown in the security panel; refuses a challenge of it (403)', async () => {
    const identity = user();
    const made = await client.factors.create(appId, identity, { type: 'totp', friendlyName: 'laptop' });
    const lockedBefore = (await client.security.get(appId)).totp.lockedFactors;
    for (let i = 0; i < 5; i += 1) await client.factors.verify(appId, identity, made.sid, '000000' === await codeOf(made.secret) ? '111111' : '000000');
    await rejects(client.factors.verify(appId, identity, made.sid, await codeOf(made.secret)), 429);
    assert.equal((await client.security.get(appId)).totp.lockedFactors, lockedBefore + 1);
    await rejects(client.factors.challenge(appId, identity, { factorSid: made.sid }), 403);
  });

  it('counts at most five answers of a challenge among concurrent ones, and accepts one code once among concurrent sign-ins', async () => {
    const identity = user();
    const made = await client.factors.create(appId, identity, { type: 'totp', friendlyName: 'race' });
    assert.equal((await client.factors.verify(appId, identity, made.sid, await codeOf(made.secret))).status, 'verified');
    nextStep();
    // Race gate: each answer is counted by a conditional UPDATE before its code is compared.
    const target = await client.factors.challenge(appId, identity, { factorSid: made.sid });
    const wrongCode = wrong(await codeOf(made.secret));
    const answers = await Promise.allSettled(Array.from({ length: 9 }, () => client.factors.answerChallenge(appId, identity, target.sid, wrongCode)));
    assert.equal(answers.filter((a) => a.status === 'fulfilled').length, 5, 'five answers counted, the others refused');
    assert.ok(answers.every((a) => a.status === 'fulfilled' || (a.reason instanceof TwofaApiError && a.reason.status === 429)));
    // Race gate: one code approves one sign-in, whichever of the concurrent ones wins.
    h.clock.advance(60 * 60_000);
    nextStep();
    const code = await codeOf(made.secret);
    const challenges = await Promise.all(Array.from({ length: 4 }, () => client.factors.challenge(appId, identity, { factorSid: made.sid })));
    const outcomes = await Promise.all(challenges.map((c) => client.factors.answerChallenge(appId, identity, c.sid, code)));
    assert.equal(outcomes.filter((o) => o.status === 'approved').length, 1, outcomes.map((o) => o.status).join());
  });

  it('answers 404 for another account\'s application, 400 for a bad identity or configuration, and deletes users with their factors', async () => {
    const other = createTwofaClient({ baseUrl: 'http://twofa.test', apiKey: h.keys.b, fetch: (input, init) => fetchAs(h, h.keys.b, input, init) });
    await rejects(other.factors.create(appId, user(), { type: 'totp', friendlyName: 'x' }), 404);
    await rejects(client.factors.create(appId, 'bad id', { type: 'totp', friendlyName: 'x' }), 400);
    await rejects(client.factors.create(appId, user(), { type: 'totp', friendlyName: 'x', config: { timeStep: 90 } }), 400);
    await rejects(client.factors.create('0'.repeat(32), user(), { type: 'totp', friendlyName: 'x' }), 404);
    const identity = user();
    const made = await client.factors.create(appId, identity, { type: 'totp', friendlyName: 'x' });
    assert.ok((await client.factors.listEntities(appId)).some((e) => e.identity === identity));
    const [first, second] = [await client.factors.listEntities(appId, { limit: 1 }), await client.factors.listEntities(appId, { limit: 1, offset: 1 })];
    assert.equal(first.length, 1);
    assert.equal(second.length, 1);
    assert.notEqual(first[0]!.sid, second[0]!.sid, 'pages by offset');
    await client.factors.deleteEntity(appId, identity);
    await rejects(client.factors.list(appId, identity), 404);
    await rejects(client.factors.delete(appId, identity, made.sid), 404);
  });

  it('moves every seed to the current secret at start (rotation), where it opens under the new secret', async () => {
    const identity = user();
    const made = await client.factors.create(appId, identity, { type: 'totp', friendlyName: 'rotated' });
    const before = (await h.node.store.factors.listSecretCiphertexts()).find((s) => s.sid === made.sid)!.ciphertext;
    const rotated = new PinKeyring('a-new-secret-for-the-rotation-test-0123456789', [HARNESS_SECRET]);
    await reencryptFactorSecrets(h.node.store, rotated, { warn: () => undefined });
    const after = (await h.node.store.factors.listSecretCiphertexts()).find((s) => s.sid === made.sid)!.ciphertext;
    assert.notEqual(after, before);
    assert.ok(after.startsWith(`${rotated.currentKeyId}:`));
    assert.equal(rotated.decryptFactorSecret(made.sid, after), made.secret);
  });
});

async function fetchAs(h: Harness, key: string, input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = new URL(String(input));
  const answer = await h.request(init?.method ?? 'GET', `${url.pathname}${url.search}`, { key, ...(init?.body !== undefined ? { rawBody: String(init.body), headers: { 'content-type': 'application/json' } } : {}) });
  return new Response(answer.status === 204 || answer.body === undefined ? null : JSON.stringify(answer.body), { status: answer.status, headers: new Headers(Object.entries(answer.headers).map(([k, v]) => [k, String(v)])) });
}
