// TOTP factors through Twilio's official Node SDK (twilio 6.2) against a running twofa server: an
// entity, a factor verified with a code that otplib (an independent implementation, v13) computes
// from the seed the create answered, challenges approved and denied, a replayed code refused, five
// wrong codes locked out. Every answer the SDK parsed is held against Twilio's OpenAPI document.
// The server's clock is the harness's, moved by the test: codes are computed for it, never raced.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { generate } from 'otplib';
import twilio from 'twilio';
import { createHarness, type Harness } from '../support/harness.js';
import { assertTwilioError } from './documented-fields.js';
import { assertTwilioSchema, isFactorOperation } from './factor-openapi.js';
import { RecordingClient, rejectsWith } from './sdk-support.js';

type Digits = 6 | 7 | 8;

describe('TOTP factors through the official Node SDK', () => {
  let h: Harness;
  let http: RecordingClient;
  let client: twilio.Twilio;
  let serviceSid: string;
  let seq = 0;
  const identity = () => `user-${Date.now().toString(36)}-${(seq += 1)}`;
  const service = () => client.verify.v2.services(serviceSid);

  /** The code otplib computes from the seed for the server's time now (or `offsetSteps` steps away). */
  async function codeOf(secret: string, options: { digits?: Digits; period?: number; offsetSteps?: number } = {}): Promise<string> {
    const period = options.period ?? 30;
    const epoch = Math.floor(h.clock.now / 1000) + (options.offsetSteps ?? 0) * period;
    return generate({ secret, epoch, period, digits: options.digits ?? 6, algorithm: 'sha1' });
  }

  /** Moves the server's clock to the start of the next time step: a code of a new step. */
  function nextStep(period = 30): void {
    h.clock.advance(period * 1000 - (h.clock.now % (period * 1000)));
  }

  const wrong = (code: string) => String((Number(code) + 1) % 10 ** code.length).padStart(code.length, '0');

  async function verifiedFactor(user = identity()) {
    const created = await service().entities(user).newFactors.create({ friendlyName: 'Ann\'s phone', factorType: 'totp' });
    const secret = (created.binding as { secret: string }).secret;
    nextStep();
    const verified = await service().entities(user).factors(created.sid).update({ authPayload: await codeOf(secret) });
    assert.equal(verified.status, 'verified');
    nextStep();
    return { user, sid: created.sid, secret };
  }

  before(async () => {
    h = await createHarness();
    await h.node.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(h.node.app.server.address() as AddressInfo).port}`;
    const accountSid = (await h.request('GET', '/api/v1/me')).body.accountSid as string;
    http = new RecordingClient({ keepAlive: false });
    client = twilio(accountSid, h.keys.a, { httpClient: http });
    client.verify.baseUrl = base;
    serviceSid = (await client.verify.v2.services.create({ friendlyName: 'Acme', 'totp.issuer': 'Acme Corp' })).sid;
  });
  after(async () => { await h.close(); });

  it('makes, fetches, lists and deletes entities; an unknown one is 404 60392', async () => {
    const user = identity();
    const made = await service().entities.create({ identity: user });
    assert.match(made.sid, /^YE[0-9a-f]{32}$/);
    assert.equal(made.identity, user);
    assert.equal((await service().entities(user).fetch()).sid, made.sid);
    assert.equal((await service().entities.create({ identity: user })).sid, made.sid, 'an identity names one entity');
    assert.ok((await service().entities.list()).some((e) => e.sid === made.sid));
    assert.equal(await service().entities(user).remove(), true);
    await rejectsWith(service().entities(user).fetch(), 404, 60392);
    await rejectsWith(service().entities.create({ identity: 'short' }), 400, 60306);
  });

  it('answers the Base32 seed and its otpauth:// URI at creation only; a code otplib computes verifies the factor, a wrong one leaves it unverified', async () => {
    const user = identity();
    const created = await service().entities(user).newFactors.create({ friendlyName: 'Ann\'s phone', factorType: 'totp' });
    assert.match(created.sid, /^YF[0-9a-f]{32}$/);
    assert.equal(created.status, 'unverified');
    assert.deepEqual(created.config, { alg: 'sha1', time_step: 30, code_length: 6, skew: 1 });
    const { secret, uri } = created.binding as { secret: string; uri: string };
    assert.match(secret, /^[A-Z2-7]{32}$/, '160 bits, Base32');
    const [label, query] = uri.replace(/^otpauth:\/\/totp\//, '').split('?') as [string, string];
    assert.ok(uri.startsWith('otpauth://totp/'));
    assert.equal(decodeURIComponent(label), 'Acme Corp:Ann\'s phone', 'issuer:account, the account being the factor\'s name');
    assert.deepEqual(Object.fromEntries(new URLSearchParams(query)), { secret, issuer: 'Acme Corp', algorithm: 'SHA1', digits: '6', period: '30' });

    const factor = service().entities(user).factors(created.sid);
    const code = await codeOf(secret);
    const refused = await factor.update({ authPayload: wrong(code) });
    assert.equal(refused.status, 'unverified', 'a wrong code is an answer, not an error');
    const verified = await factor.update({ authPayload: code });
    assert.equal(verified.status, 'verified');
    const fetched = await factor.fetch();
    assert.equal(fetched.status, 'verified');
    assert.equal((http.answers.at(-1)!.body as Record<string, unknown>)['binding'], undefined, 'the seed is never answered again');
    assert.deepEqual((await service().entities(user).factors.list()).map((f) => f.sid), [created.sid]);
    assert.equal((await service().entities(user).fetch()).identity, user, 'the first factor made its entity');

    // The seed is nowhere in the logs, nor in the database file in clear.
    assert.ok(!h.logs.join('\n').includes(secret));
    const files = fs.readdirSync(h.dir).filter((f) => f.startsWith('twofa.db')).map((f) => fs.readFileSync(`${h.dir}/${f}`));
    for (const bytes of files) assert.ok(!bytes.includes(Buffer.from(secret)), 'the seed is stored encrypted');
  });

  it('approves a challenge with the code, at creation or by update; a wrong code leaves it pending', async () => {
    const { user, sid, secret } = await verifiedFactor();
    const at = await service().entities(user).challenges.create({ factorSid: sid, authPayload: await codeOf(secret) });
    assert.equal(at.status, 'approved');
    assert.equal(at.factorType, 'totp');
    assert.ok(at.dateResponded instanceof Date);
    nextStep();

    const pending = await service().entities(user).challenges.create({ factorSid: sid });
    assert.equal(pending.status, 'pending');
    assert.equal(pending.expirationDate.getTime(), Math.floor(h.clock.now / 1000) * 1000 + 5 * 60_000, 'expires in five minutes');
    const challenge = service().entities(user).challenges(pending.sid);
    const code = await codeOf(secret);
    assert.equal((await challenge.update({ authPayload: wrong(code) })).status, 'pending');
    const approved = await challenge.update({ authPayload: code });
    assert.equal(approved.status, 'approved');
    assert.equal((await challenge.fetch()).status, 'approved');
    await rejectsWith(challenge.update({ authPayload: code }), 403, 60383);
    const listed = await service().entities(user).challenges.list({ factorSid: sid, status: 'approved' });
    assert.deepEqual(listed.map((c) => c.sid).sort(), [at.sid, pending.sid].sort());
  });

  it('refuses a code accepted once: the replay leaves the next challenge pending, a code of a later step approves it', async () => {
    const { user, sid, secret } = await verifiedFactor();
    const code = await codeOf(secret);
    assert.equal((await service().entities(user).challenges.create({ factorSid: sid, authPayload: code })).status, 'approved');
    const replayed = await service().entities(user).challenges.create({ factorSid: sid, authPayload: code });
    assert.equal(replayed.status, 'pending', 'the same code, within its window, is refused');
    // The code of the step before, still within the skew, is refused too: only later steps count.
    assert.equal((await service().entities(user).challenges(replayed.sid).update({ authPayload: await codeOf(secret, { offsetSteps: -1 }) })).status, 'pending');
    nextStep();
    assert.equal((await service().entities(user).challenges(replayed.sid).update({ authPayload: await codeOf(secret) })).status, 'approved');
  });

  it('denies a challenge at its fifth wrong code and refuses any answer after (429 60308), the right code included', async () => {
    const { user, sid, secret } = await verifiedFactor();
    const created = await service().entities(user).challenges.create({ factorSid: sid });
    const challenge = service().entities(user).challenges(created.sid);
    const code = await codeOf(secret);
    const statuses = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await challenge.update({ authPayload: wrong(code) })).status);
    assert.deepEqual(statuses, ['pending', 'pending', 'pending', 'pending', 'denied']);
    await rejectsWith(challenge.update({ authPayload: code }), 429, 60308);
    assert.equal((await challenge.fetch()).status, 'denied');
  });

  it('locks a factor\'s verification out after five wrong codes (429 60310), the right code included', async () => {
    const user = identity();
    const created = await service().entities(user).newFactors.create({ friendlyName: 'laptop', factorType: 'totp' });
    const factor = service().entities(user).factors(created.sid);
    const code = await codeOf((created.binding as { secret: string }).secret);
    for (let i = 0; i < 5; i += 1) assert.equal((await factor.update({ authPayload: wrong(code) })).status, 'unverified');
    await rejectsWith(factor.update({ authPayload: code }), 429, 60310);
    assert.equal((await factor.fetch()).status, 'unverified');
    await rejectsWith(service().entities(user).challenges.create({ factorSid: created.sid }), 403, 60318);
  });

  it('bounds guesses across challenges: at most 10 codes per factor in an hour (429 60308 with Retry-After)', async () => {
    const { user, sid, secret } = await verifiedFactor();
    let checked = 0;
    while (checked < 10) {
      const c = await service().entities(user).challenges.create({ factorSid: sid });
      for (let i = 0; i < 5 && checked < 10; i += 1, checked += 1) await service().entities(user).challenges(c.sid).update({ authPayload: '000000' === await codeOf(secret) ? '111111' : '000000' });
    }
    const fresh = await service().entities(user).challenges.create({ factorSid: sid });
    const refused = await rejectsWith(service().entities(user).challenges(fresh.sid).update({ authPayload: await codeOf(secret) }), 429, 60308);
    assert.match(refused.message, /Too many codes/);
    const raw = await h.request('POST', `/v2/Services/${serviceSid}/Entities/${user}/Challenges/${fresh.sid}`, { rawBody: `AuthPayload=${await codeOf(secret)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(raw.status, 429);
    assert.ok(Number(raw.headers['retry-after']) > 0);
    h.clock.advance(60 * 60_000);
    const later = await service().entities(user).challenges.create({ factorSid: sid, authPayload: await codeOf(secret) });
    assert.equal(later.status, 'approved', 'the window frees its slots');
  });

  it('expires a challenge after its ExpirationDate (403 60323); refuses one beyond 60 minutes (400 60306)', async () => {
    const { user, sid, secret } = await verifiedFactor();
    const created = await service().entities(user).challenges.create({ factorSid: sid, expirationDate: new Date(h.clock.now + 60_000) });
    h.clock.advance(61_000);
    assert.equal((await service().entities(user).challenges(created.sid).fetch()).status, 'expired');
    await rejectsWith(service().entities(user).challenges(created.sid).update({ authPayload: await codeOf(secret) }), 403, 60323);
    assert.deepEqual((await service().entities(user).challenges.list({ status: 'expired' })).map((c) => c.sid), [created.sid]);
    await rejectsWith(service().entities(user).challenges.create({ factorSid: sid, expirationDate: new Date(h.clock.now + 61 * 60_000) }), 400, 60306);
  });

  it('takes the Service\'s Totp.* as the defaults of its factors, Config.* over them, within Twilio\'s ranges', async () => {
    const other = await client.verify.v2.services.create({ friendlyName: 'Bank', 'totp.codeLength': 8, 'totp.timeStep': 60, 'totp.skew': 0 });
    assert.deepEqual(other.totp, { issuer: null, time_step: 60, code_length: 8, skew: 0 });
    const user = identity();
    const made = await client.verify.v2.services(other.sid).entities(user).newFactors.create({ friendlyName: 'token', factorType: 'totp' });
    assert.deepEqual(made.config, { alg: 'sha1', time_step: 60, code_length: 8, skew: 0 });
    assert.match((made.binding as { uri: string }).uri, /^otpauth:\/\/totp\/Bank:token\?.*digits=8&period=60$/, 'the issuer is the Service\'s name without Totp.Issuer');
    const code = await codeOf((made.binding as { secret: string }).secret, { digits: 8, period: 60 });
    assert.equal((await client.verify.v2.services(other.sid).entities(user).factors(made.sid).update({ authPayload: code })).status, 'verified');
    const own = await service().entities(identity()).newFactors.create({ friendlyName: 'x', factorType: 'totp', 'config.codeLength': 7, 'config.skew': 2, 'config.timeStep': 20 });
    assert.deepEqual(own.config, { alg: 'sha1', time_step: 20, code_length: 7, skew: 2 });
    await rejectsWith(service().entities(identity()).newFactors.create({ friendlyName: 'x', factorType: 'totp', 'config.skew': 3 }), 400, 60306);
    await rejectsWith(service().entities(identity()).newFactors.create({ friendlyName: 'x', factorType: 'totp', 'config.timeStep': 10 }), 400, 60306);
    await rejectsWith(service().entities(identity()).newFactors.create({ friendlyName: 'x', factorType: 'push' }), 400, 60306);
    await rejectsWith(client.verify.v2.services.create({ friendlyName: 'Bad', 'totp.skew': 5 }), 400, 60200);
  });

  it('verifies with a seed of the caller\'s (Binding.Secret) and keeps entities, factors and challenges per account', async () => {
    const user = identity();
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const made = await service().entities(user).newFactors.create({ friendlyName: 'seeded', factorType: 'totp', 'binding.secret': secret, metadata: { os: 'web' } });
    assert.equal((made.binding as { secret: string }).secret, secret);
    assert.deepEqual(made.metadata, { os: 'web' });
    assert.equal((await service().entities(user).factors(made.sid).update({ authPayload: await codeOf(secret) })).status, 'verified');
    await rejectsWith(service().entities(identity()).newFactors.create({ friendlyName: 'x', factorType: 'totp', 'binding.secret': 'AAAA' }), 400, 60306);

    const accountB = (await h.request('GET', '/api/v1/me', { key: h.keys.b })).body.accountSid as string;
    const other = twilio(accountB, h.keys.b, { httpClient: http });
    other.verify.baseUrl = client.verify.baseUrl;
    await rejectsWith(other.verify.v2.services(serviceSid).entities(user).fetch(), 404, 20404);
    await rejectsWith(service().entities(user).factors(`YF${'0'.repeat(32)}`).fetch(), 404, 60390);
    await rejectsWith(service().entities(user).challenges(`YC${'0'.repeat(32)}`).fetch(), 404, 60391);
    assert.equal(await service().entities(user).factors(made.sid).remove(), true);
    await rejectsWith(service().entities(user).factors(made.sid).fetch(), 404, 60390);
  });

  it('audits every creation, verification, answer and refusal, without a code or a seed', async () => {
    const audit = await h.request('GET', '/api/v1/audit?limit=1000');
    const events = new Set((audit.body.entries as Array<{ event: string }>).map((e) => e.event));
    for (const event of ['factor.entity.create', 'factor.create', 'factor.verify', 'factor.challenge.create', 'factor.challenge.approve', 'factor.challenge.wrong_code', 'factor.challenge.deny', 'factor.challenge.refused', 'factor.delete', 'factor.entity.delete']) {
      assert.ok(events.has(event), `${event} is audited`);
    }
  });

  it('answered every request the SDK parsed as Twilio\'s OpenAPI document says (run last)', () => {
    const factorAnswers = http.answers.filter((a) => isFactorOperation(a.method, a.uri));
    assert.ok(factorAnswers.length > 60, `${factorAnswers.length} answers recorded`);
    for (const answer of factorAnswers) {
      if (answer.statusCode >= 400) assertTwilioError(answer.body, answer.statusCode, (answer.body as { code: number }).code);
      else assertTwilioSchema(answer.method, answer.uri, answer.statusCode, answer.body);
    }
  });
});
