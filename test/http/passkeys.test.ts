// Passkeys through Twilio's /Passkeys routes, through inject(), on SQLite and (npm test runs test/http
// twice) PostgreSQL, with a software authenticator answering the options as a browser would
// (test/console/passkeys.test.ts does the same in Chromium). Registration and approval, and every
// refusal a relying party owes its users: another origin, a tampered assertion, a replayed one, a
// counter that goes backwards, an expired challenge, another account.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, type Harness } from '../support/harness.js';
import { createCredential, getAssertion, type SoftPasskey } from '../support/soft-authenticator.js';
import { assertTwilioError } from '../twilio/documented-fields.js';
import { assertTwilioSchema } from '../twilio/factor-openapi.js';

const ORIGIN = 'https://login.example.com';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
/** Twilio's documented fields (its OpenAPI document) of each answer. */
const NEW_FACTOR_FIELDS = ['sid', 'account_sid', 'service_sid', 'entity_sid', 'identity', 'binding', 'options', 'date_created', 'date_updated', 'friendly_name', 'status', 'factor_type', 'config', 'metadata', 'url'];
const FACTOR_FIELDS = NEW_FACTOR_FIELDS.filter((f) => f !== 'binding' && f !== 'options');
const CHALLENGE_FIELDS = ['sid', 'account_sid', 'service_sid', 'entity_sid', 'identity', 'factor_sid', 'date_created', 'date_updated', 'date_responded', 'expiration_date', 'status', 'responded_reason', 'details', 'hidden_details', 'metadata', 'factor_type', 'url', 'links', 'options'];

describe('passkeys through Twilio Verify', () => {
  let h: Harness;
  let service = '';
  const identity = 'user-0001-passkeys';
  let passkey: SoftPasskey;
  let factorSid = '';
  let entitySid = '';

  const post = (path: string, body: unknown, key?: string) => h.request('POST', `/v2/Services/${service}/Passkeys/${path}`, { body, ...(key !== undefined ? { key } : {}) });
  const form = (url: string, fields: Record<string, string>) => h.request('POST', url, { rawBody: new URLSearchParams(fields).toString(), headers: FORM });
  const audited = async (event: string) => ((await h.request('GET', `/api/v1/audit?event=${event}`)).body.entries as Array<{ reason: string | null }>);

  async function challengeFor(body: Record<string, unknown>) {
    const created = await post('Challenges', body);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body as { sid: string; options: { publicKey: Record<string, unknown> } };
  }

  before(async () => {
    h = await createHarness();
    const created = await form('/v2/Services', {
      FriendlyName: 'Passkeys', 'Passkeys.RelyingParty.Id': 'example.com', 'Passkeys.RelyingParty.Name': 'Example',
      'Passkeys.RelyingParty.Origins': ORIGIN, 'Passkeys.AuthenticatorAttachment': 'platform', 'Passkeys.DiscoverableCredentials': 'preferred',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    service = created.body.sid;
  });
  after(async () => { await h.close(); });

  it('refuses a factor while the authenticator criteria are missing (60393), then takes them from the request', async () => {
    const missing = await post('Factors', { friendly_name: 'Laptop', identity });
    assert.equal(missing.status, 400);
    assertTwilioError(missing.body, 400, 60393);
    assert.match(missing.body.message, /user_verification/);
    const badOrigin = await post('Factors', { friendly_name: 'Laptop', identity, config: { user_verification: 'preferred', relying_party: { origins: ['https://evil.test'] } } });
    assert.equal(badOrigin.status, 400);
    assertTwilioError(badOrigin.body, 400, 60306);
  });

  it('registers a passkey: creation options from the Service\'s relying party, the attestation verifies the factor', async () => {
    const created = await post('Factors', { friendly_name: 'Laptop', identity, config: { user_verification: 'preferred' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(Object.keys(created.body).sort(), [...NEW_FACTOR_FIELDS].sort());
    const factor = created.body;
    assert.match(factor.sid, /^YF[0-9a-f]{32}$/);
    assert.equal(factor.status, 'unverified');
    assert.equal(factor.factor_type, 'passkeys');
    assert.equal(factor.binding, null);
    assert.deepEqual(factor.config, { relying_party: { id: 'example.com', name: 'Example', origins: [ORIGIN] }, authenticator_attachment: 'platform', discoverable_credentials: 'preferred', user_verification: 'preferred' });
    const options = factor.options.publicKey;
    assert.deepEqual(options.rp, { id: 'example.com', name: 'Example' });
    // Twilio's user handle: the entity SID, base64url.
    assert.equal(Buffer.from(options.user.id, 'base64url').toString(), factor.entity_sid);
    assert.ok(Array.isArray(options.pubKeyCredParams) && options.pubKeyCredParams.some((p: { alg: number }) => p.alg === -7));
    assert.equal(Buffer.from(options.challenge, 'base64url').length, 32);
    assert.equal(options.authenticatorSelection.authenticatorAttachment, 'platform');
    assert.equal(options.attestation, 'none');
    factorSid = factor.sid;
    entitySid = factor.entity_sid;

    const made = createCredential(factor.options, ORIGIN);
    passkey = made.passkey;
    const verified = await post('VerifyFactor', made.credential);
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.deepEqual(Object.keys(verified.body).sort(), [...FACTOR_FIELDS].sort());
    assert.equal(verified.body.status, 'verified');
    assert.equal(verified.body.sid, factorSid);
    assert.equal(verified.body.identity, identity);

    // Afterwards it is a factor of its Entity like any other, as Twilio's document describes one.
    const fetchUrl = `/v2/Services/${service}/Entities/${identity}/Factors/${factorSid}`;
    const fetched = await h.request('GET', fetchUrl);
    assert.equal(fetched.status, 200);
    assertTwilioSchema('GET', `http://localhost${fetchUrl}`, 200, fetched.body);
    assert.equal(fetched.body.factor_type, 'passkeys');
    assert.equal(fetched.body.status, 'verified');
    assert.deepEqual(fetched.body.config, factor.config);

    // The registration's challenge was single use: the same attestation again is refused.
    const replayed = await post('VerifyFactor', made.credential);
    assert.equal(replayed.status, 403);
    assertTwilioError(replayed.body, 403, 60311);
    assert.ok((await audited('factor.passkey.verify')).some((e) => e.reason?.startsWith(factorSid)));
    assert.ok((await audited('factor.passkey.verify.refused')).some((e) => e.reason === '- unknown_challenge'));
  });

  it('refuses a registration made on a page outside the relying party\'s origins, and one sent with another account\'s key', async () => {
    const created = await post('Factors', { friendlyName: 'Phone', identity, config: { userVerification: 'preferred' } });
    assert.equal(created.status, 201, 'camelCase, as the SDK\'s TypeScript classes name them');
    const foreign = createCredential(created.body.options, 'https://evil.example.net');
    const refused = await post('VerifyFactor', foreign.credential);
    assert.equal(refused.status, 403);
    assertTwilioError(refused.body, 403, 60311);
    assert.match(refused.body.message, /origin/);
    assert.ok((await audited('factor.passkey.verify.refused')).some((e) => e.reason === `${created.body.sid} origin`));
    // Another account's key finds nothing to verify with it.
    const other = await h.request('POST', `/v2/Services/${service}/Passkeys/VerifyFactor`, { key: h.keys.b, body: createCredential(created.body.options, ORIGIN).credential });
    assert.equal(other.status, 404);
  });

  it('approves a challenge of the user\'s passkeys with an assertion, once', async () => {
    const challenge = await challengeFor({ identity });
    assert.deepEqual(Object.keys(challenge).sort(), [...CHALLENGE_FIELDS].sort());
    const body = challenge as unknown as Record<string, unknown>;
    assert.equal(body['status'], 'pending');
    assert.equal(body['identity'], identity);
    assert.equal(body['factor_type'], 'passkeys');
    const options = challenge.options.publicKey;
    assert.equal(options['rpId'], 'example.com');
    assert.deepEqual((options['allowCredentials'] as Array<{ id: string }>).map((c) => c.id), [passkey.credentialId]);

    const assertion = getAssertion(challenge.options, passkey, ORIGIN);
    const approved = await post('ApproveChallenge', assertion);
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.deepEqual(Object.keys(approved.body).sort(), [...CHALLENGE_FIELDS].sort());
    assert.equal(approved.body.status, 'approved');
    assert.equal(approved.body.sid, challenge.sid);
    assert.equal(approved.body.factor_sid, factorSid);
    assert.equal(approved.body.options, null);
    assert.match(approved.body.url, /\/Passkeys\/ApproveChallenge$/);

    const again = await post('ApproveChallenge', assertion);
    assert.equal(again.status, 403);
    assert.ok((await audited('challenge.passkey.approve')).some((e) => e.reason?.startsWith(`${challenge.sid} ${factorSid}`)));
  });

  it('refuses an assertion from another origin, a tampered one, and a sign counter that goes backwards', async () => {
    const wrongOrigin = await challengeFor({ identity, factor_sid: factorSid });
    const fromElsewhere = await post('ApproveChallenge', getAssertion(wrongOrigin.options, passkey, 'https://evil.example.net'));
    assert.equal(fromElsewhere.status, 403);
    assertTwilioError(fromElsewhere.body, 403, 60324);
    assert.match(fromElsewhere.body.message, /origin/);

    const tampered = await challengeFor({ identity });
    const assertion = getAssertion(tampered.options, passkey, ORIGIN);
    const response = assertion['response'] as Record<string, string>;
    const authData = Buffer.from(response['authenticatorData']!, 'base64url');
    authData.writeUInt32BE(authData.readUInt32BE(33) + 100, 33); // a sign count the authenticator did not sign
    response['authenticatorData'] = authData.toString('base64url');
    const forged = await post('ApproveChallenge', assertion);
    assert.equal(forged.status, 403);
    assertTwilioError(forged.body, 403, 60324);
    // The challenge is still pending: the genuine answer approves it.
    assert.equal((await post('ApproveChallenge', getAssertion(tampered.options, passkey, ORIGIN))).status, 200);

    const cloned = await challengeFor({ identity });
    const backwards = await post('ApproveChallenge', getAssertion(cloned.options, passkey, ORIGIN, { signCount: 1 }));
    assert.equal(backwards.status, 403);
    assert.match(backwards.body.message, /counter/);
    passkey.signCount = 10; // the genuine authenticator's count moves on from where it was
    const reasons = (await audited('challenge.passkey.refused')).map((e) => e.reason);
    for (const expected of [`${wrongOrigin.sid} origin`, `${tampered.sid} signature`, `${cloned.sid} counter`]) assert.ok(reasons.includes(expected), `${expected} in ${reasons.join(', ')}`);
  });

  it('approves a discoverable challenge once the Service has every setting, naming its user from the passkey', async () => {
    const incomplete = await post('Challenges', {});
    assert.equal(incomplete.status, 400);
    assertTwilioError(incomplete.body, 400, 60393);
    for (const [name, value] of [['Passkeys.UserVerification', 'always'], ['Passkeys.RelyingParty.Origins', 'http://example.com']] as const) {
      const wrong = await form(`/v2/Services/${service}`, { [name]: value });
      assert.equal(wrong.status, 400, name);
      assertTwilioError(wrong.body, 400, 60200);
      assert.equal(wrong.body.message, `Invalid parameter: ${name}`);
    }
    const updated = await form(`/v2/Services/${service}`, { 'Passkeys.UserVerification': 'preferred' });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.deepEqual(updated.body.passkeys, {
      relying_party: { id: 'example.com', name: 'Example', origins: [ORIGIN] }, authenticator_attachment: 'platform', discoverable_credentials: 'preferred', user_verification: 'preferred',
    });

    const challenge = await challengeFor({});
    const body = challenge as unknown as Record<string, unknown>;
    assert.equal(body['identity'], '');
    assert.equal(body['entity_sid'], '');
    assert.deepEqual(challenge.options.publicKey['allowCredentials'], []);
    const approved = await post('ApproveChallenge', getAssertion(challenge.options, passkey, ORIGIN));
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.identity, identity);
    assert.equal(approved.body.entity_sid, entitySid);
    assert.equal(approved.body.factor_sid, factorSid);
  });

  it('refuses an expired challenge (60323), a challenge of an unverified factor (60318) and of an unknown user (60392)', async () => {
    const challenge = await challengeFor({ identity });
    h.clock.advance(5 * 60_000 + 1);
    const late = await post('ApproveChallenge', getAssertion(challenge.options, passkey, ORIGIN));
    assert.equal(late.status, 403);
    assertTwilioError(late.body, 403, 60323);

    const unverified = await post('Factors', { friendly_name: 'Key', identity, config: { user_verification: 'discouraged' } });
    const refused = await post('Challenges', { identity, factor_sid: unverified.body.sid });
    assert.equal(refused.status, 403);
    assertTwilioError(refused.body, 403, 60318);
    const unknown = await post('Challenges', { identity: 'nobody-0000-here' });
    assert.equal(unknown.status, 404);
    assertTwilioError(unknown.body, 404, 60392);
  });

  it('approves a challenge once when two genuine answers race, and takes five refused answers at most', async () => {
    const raced = await challengeFor({ identity });
    const first = getAssertion(raced.options, passkey, ORIGIN);
    const second = getAssertion(raced.options, passkey, ORIGIN);
    const answers = await Promise.all([post('ApproveChallenge', first), post('ApproveChallenge', second)]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 403], JSON.stringify(answers.map((a) => a.body)));

    const probed = await challengeFor({ identity });
    for (let i = 0; i < 5; i++) assert.equal((await post('ApproveChallenge', getAssertion(probed.options, passkey, 'https://evil.example.net'))).status, 403);
    const sixth = await post('ApproveChallenge', getAssertion(probed.options, passkey, ORIGIN));
    assert.equal(sixth.status, 429);
    assertTwilioError(sixth.body, 429, 60308);
  });

  it('keeps each account\'s passkeys to itself', async () => {
    const challenge = await challengeFor({ identity });
    const other = await h.request('POST', `/v2/Services/${service}/Passkeys/ApproveChallenge`, { key: h.keys.b, body: getAssertion(challenge.options, passkey, ORIGIN) });
    assert.equal(other.status, 404);
    assertTwilioError(other.body, 404, 20404);
  });
});

describe('passkeys through /api/v1', () => {
  let h: Harness;
  let appId = '';
  const origin = 'http://localhost:8080';
  before(async () => {
    h = await createHarness();
    appId = (await h.request('POST', '/2fa/2/applications', { body: { name: 'passkeys app' } })).body.applicationId;
  });
  after(async () => { await h.close(); });

  it('sets the relying party of an application, refusing an origin off it, audited', async () => {
    const wrong = await h.request('PUT', `/api/v1/applications/${appId}/passkeys/settings`, { body: { relyingParty: { id: 'localhost', origins: ['http://127.0.0.1:8080'] } } });
    assert.equal(wrong.status, 400);
    assert.deepEqual(Object.keys(wrong.body.requestError.serviceException.validationErrors), ['relyingParty.origins']);
    const set = await h.request('PUT', `/api/v1/applications/${appId}/passkeys/settings`, {
      body: { relyingParty: { id: 'localhost', name: 'Local', origins: [origin] }, authenticatorAttachment: 'platform', discoverableCredentials: 'required', userVerification: 'required' },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const read = await h.request('GET', `/api/v1/applications/${appId}/passkeys/settings`);
    assert.deepEqual(read.body, { applicationId: appId, relyingParty: { id: 'localhost', name: 'Local', origins: [origin] }, authenticatorAttachment: 'platform', discoverableCredentials: 'required', userVerification: 'required' });
    const audit = await h.request('GET', '/api/v1/audit?event=config.passkeys.update');
    assert.equal(audit.body.entries.length, 1);
    assert.equal((await h.request('GET', `/api/v1/applications/${appId}/passkeys/settings`, { key: h.keys.b })).status, 404);
  });

  it('registers a passkey and approves a challenge with it, requiring user verification as configured', async () => {
    const created = await h.request('POST', `/api/v1/applications/${appId}/passkeys`, { body: { identity: 'user-0002-console', friendlyName: 'Laptop' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.status, 'unverified');
    assert.equal(created.body.options.publicKey.authenticatorSelection.residentKey, 'required');
    const { credential, passkey } = createCredential(created.body.options, origin);
    const verified = await h.request('POST', `/api/v1/applications/${appId}/passkeys/verify`, { body: credential });
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.equal(verified.body.status, 'verified');
    assert.equal(verified.body.factorSid, created.body.factorSid);

    const challenge = await h.request('POST', `/api/v1/applications/${appId}/passkey-challenges`, { body: {} });
    assert.equal(challenge.status, 201, JSON.stringify(challenge.body));
    assert.equal(challenge.body.identity, null);
    const unverifiedUser = await h.request('POST', `/api/v1/applications/${appId}/passkey-challenges/approve`, { body: getAssertion(challenge.body.options, passkey, origin, { userVerified: false }) });
    assert.equal(unverifiedUser.status, 403);
    assert.match(unverifiedUser.body.requestError.serviceException.text, /user verification/);
    const approved = await h.request('POST', `/api/v1/applications/${appId}/passkey-challenges/approve`, { body: getAssertion(challenge.body.options, passkey, origin) });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.status, 'approved');
    assert.equal(approved.body.identity, 'user-0002-console');
    assert.equal(approved.body.factorSid, created.body.factorSid);
  });
});
