// The passkey ceremonies (service/webauthn.ts) and their settings (domain/passkeys.ts), against a
// software authenticator: what a relying party must refuse is refused, each for its reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claimedChallenge, effectivePasskeyConfig, type PasskeyConfig } from '../../src/domain/passkeys.js';
import { authenticationOptions, newChallenge, registrationOptions, verifyAuthentication, verifyRegistration, type PasskeyCredential } from '../../src/service/webauthn.js';
import { createCredential, getAssertion } from '../support/soft-authenticator.js';

const ORIGIN = 'https://app.example.com';
const config: PasskeyConfig = {
  relying_party: { id: 'example.com', name: 'Example', origins: [ORIGIN] },
  authenticator_attachment: 'platform', discoverable_credentials: 'preferred', user_verification: 'preferred',
};

async function registered(cfg = config) {
  const challenge = newChallenge();
  const options = await registrationOptions({ config: cfg, userHandle: 'YE0123', userName: 'alice', challenge, excludeCredentialIds: [] });
  const { credential, passkey } = createCredential({ publicKey: options as unknown as Record<string, unknown> }, ORIGIN);
  const verified = await verifyRegistration(credential, { challenge, config: cfg });
  assert.ok(verified.ok, JSON.stringify(verified));
  return { passkey, stored: verified.value as PasskeyCredential };
}

async function assertion(stored: PasskeyCredential, passkey: ReturnType<typeof createCredential>['passkey'], origin = ORIGIN, extra: { signCount?: number; userVerified?: boolean } = {}) {
  const challenge = newChallenge();
  const options = await authenticationOptions({ rpId: 'example.com', challenge, timeoutMs: 60_000, userVerification: 'preferred', allowCredentials: [{ id: stored.id, transports: stored.transports }] });
  return { challenge, body: getAssertion({ publicKey: options as unknown as Record<string, unknown> }, passkey, origin, extra) };
}

describe('passkey settings', () => {
  it('take each field from the request, else from the Service, and name what is missing', () => {
    const service = { relying_party: { id: 'example.com', name: null, origins: ['https://example.com'] }, authenticator_attachment: 'any', discoverable_credentials: null, user_verification: 'required' };
    const merged = effectivePasskeyConfig(service, { discoverable_credentials: 'required' });
    assert.deepEqual(merged, { ok: true, config: { relying_party: { id: 'example.com', name: 'example.com', origins: ['https://example.com'] }, authenticator_attachment: 'any', discoverable_credentials: 'required', user_verification: 'required' } });
    assert.deepEqual(effectivePasskeyConfig(service, undefined), { ok: false, problem: 'criteria', fields: ['discoverable_credentials'] });
  });

  it('refuse an origin outside the relying party, plain http off localhost, and an IP address as the id', () => {
    const criteria = { authenticator_attachment: 'any', discoverable_credentials: 'preferred', user_verification: 'preferred' };
    const outcome = (id: string, origins: string[]) => effectivePasskeyConfig({ relying_party: { id, origins }, ...criteria }, undefined);
    assert.equal(outcome('example.com', ['https://evil.com']).ok, false);
    assert.equal(outcome('example.com', ['http://example.com']).ok, false);
    assert.equal(outcome('127.0.0.1', ['http://127.0.0.1:8080']).ok, false);
    assert.equal(outcome('example.com', ['https://example.com/path']).ok, false);
    assert.equal(outcome('localhost', ['http://localhost:8080']).ok, true);
    assert.equal(outcome('example.com', ['https://login.example.com', 'https://example.com']).ok, true);
  });

  it('read the claimed challenge of a clientDataJSON, and nothing out of garbage', () => {
    const data = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: 'abc_-', origin: ORIGIN })).toString('base64url');
    assert.equal(claimedChallenge(data), 'abc_-');
    assert.equal(claimedChallenge('not json!'), undefined);
    assert.equal(claimedChallenge(Buffer.from('{"challenge":5}').toString('base64url')), undefined);
  });
});

describe('the WebAuthn ceremonies', () => {
  it('register a passkey and verify its assertions, the sign counter moving forward', async () => {
    const { passkey, stored } = await registered();
    assert.equal(stored.signCount, 0);
    const { challenge, body } = await assertion(stored, passkey);
    const verified = await verifyAuthentication(body, { challenge, config, credential: stored });
    assert.deepEqual(verified, { ok: true, value: { signCount: 1, userVerified: true } });
  });

  it('refuse a registration from another origin, for another challenge or another relying party, and a body that is no credential', async () => {
    const challenge = newChallenge();
    const options = { publicKey: await registrationOptions({ config, userHandle: 'YE1', userName: 'bob', challenge, excludeCredentialIds: [] }) as unknown as Record<string, unknown> };
    const fromElsewhere = createCredential(options, 'https://evil.example.net').credential;
    assert.equal((await verifyRegistration(fromElsewhere, { challenge, config }) as { reason: string }).reason, 'origin');
    const good = createCredential(options, ORIGIN).credential;
    assert.equal((await verifyRegistration(good, { challenge: newChallenge(), config }) as { reason: string }).reason, 'challenge');
    const otherRp = createCredential({ publicKey: { ...options.publicKey, rp: { id: 'evil.com', name: 'x' } } }, ORIGIN).credential;
    assert.equal((await verifyRegistration(otherRp, { challenge, config }) as { reason: string }).reason, 'rp_id');
    assert.equal((await verifyRegistration({ id: 'x' }, { challenge, config }) as { reason: string }).reason, 'malformed');
  });

  it('refuse an assertion from a wrong origin, a tampered one, one of another key, and a counter that goes backwards', async () => {
    const { passkey, stored } = await registered();
    const wrongOrigin = await assertion(stored, passkey, 'https://evil.example.net');
    assert.equal((await verifyAuthentication(wrongOrigin.body, { challenge: wrongOrigin.challenge, config, credential: stored }) as { reason: string }).reason, 'origin');

    const tampered = await assertion(stored, passkey);
    const response = tampered.body['response'] as Record<string, string>;
    const authData = Buffer.from(response['authenticatorData']!, 'base64url');
    authData.writeUInt8(authData.readUInt8(authData.length - 1) ^ 0x01, authData.length - 1); // another sign count than the one signed
    response['authenticatorData'] = authData.toString('base64url');
    assert.equal((await verifyAuthentication(tampered.body, { challenge: tampered.challenge, config, credential: stored }) as { reason: string }).reason, 'signature');

    const other = await registered();
    const foreign = await assertion(stored, { ...other.passkey, credentialId: stored.id });
    assert.equal((await verifyAuthentication(foreign.body, { challenge: foreign.challenge, config, credential: stored }) as { reason: string }).reason, 'signature');

    const atFive = { ...stored, signCount: 5 };
    const backwards = await assertion(atFive, passkey, ORIGIN, { signCount: 3 });
    assert.equal((await verifyAuthentication(backwards.body, { challenge: backwards.challenge, config, credential: atFive }) as { reason: string }).reason, 'counter');
    const same = await assertion(atFive, passkey, ORIGIN, { signCount: 5 });
    assert.equal((await verifyAuthentication(same.body, { challenge: same.challenge, config, credential: atFive }) as { reason: string }).reason, 'counter');
  });

  it('require user verification when the relying party does', async () => {
    const strict: PasskeyConfig = { ...config, user_verification: 'required' };
    const { passkey, stored } = await registered(strict);
    const unverified = await assertion(stored, passkey, ORIGIN, { userVerified: false });
    assert.equal((await verifyAuthentication(unverified.body, { challenge: unverified.challenge, config: strict, credential: stored }) as { reason: string }).reason, 'user_verification');
    const lenient = await assertion(stored, passkey, ORIGIN, { userVerified: false });
    assert.equal((await verifyAuthentication(lenient.body, { challenge: lenient.challenge, config, credential: stored })).ok, true);
  });
});
