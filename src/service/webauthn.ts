// The WebAuthn ceremonies of a passkey factor, over @simplewebauthn/server: the options a browser
// passes to navigator.credentials.create()/get(), and the checks of what it answers. No storage
// here: the caller keeps the challenge it issued (single use, with an expiry) and the credential
// (public key, sign counter), and passes them in. Each refusal is a value naming its reason, for
// the audit log and the caller's answer; the library's exceptions never leave this module.
import { randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse,
  type AuthenticationResponseJSON, type AuthenticatorTransport, type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON, type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { authenticatorSelectionOf, REGISTRATION_TIMEOUT_MS, userVerificationRequired, type PasskeyConfig } from '../domain/passkeys.js';

/** ES256 first (what Twilio's options name and every platform authenticator makes), then EdDSA and RS256. */
export const SUPPORTED_ALGORITHMS = [-7, -8, -257];

/** Why a ceremony's answer was refused (recorded in the audit log; the client is told in words). */
export type CeremonyRefusal =
  | 'malformed' // not a credential of the expected shape
  | 'type' // a get() answer to a create() ceremony, or the reverse
  | 'challenge' // not the challenge this ceremony issued
  | 'origin' // a page outside the relying party's origins
  | 'rp_id' // made for another relying party
  | 'user_presence'
  | 'user_verification' // the config requires it and the authenticator did not verify the user
  | 'algorithm' // a key type twofa does not accept
  | 'signature' // the assertion's signature does not verify with the registered key
  | 'counter' // the authenticator's sign counter did not move forward: a cloned authenticator or a replay
  | 'credential' // not the credential of the factor
  | 'attestation'; // the attestation statement does not verify

export type CeremonyOutcome<T> = { ok: true; value: T } | { ok: false; reason: CeremonyRefusal; detail: string };

const refuse = (reason: CeremonyRefusal, detail: string): { ok: false; reason: CeremonyRefusal; detail: string } => ({ ok: false, reason, detail });

/** A fresh challenge: 32 random bytes, base64url (WebAuthn asks for at least 16). */
export function newChallenge(): string {
  return randomBytes(32).toString('base64url');
}

export interface RegistrationInput {
  config: PasskeyConfig;
  /** The user handle the authenticator keeps (Twilio's: the entity SID), returned by discoverable assertions. */
  userHandle: string;
  userName: string;
  challenge: string;
  /** The entity's passkeys already registered: the authenticator refuses to make a second one beside them. */
  excludeCredentialIds: readonly string[];
}

export async function registrationOptions(input: RegistrationInput): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const options = await generateRegistrationOptions({
    rpName: input.config.relying_party.name, rpID: input.config.relying_party.id,
    userName: input.userName, userDisplayName: input.userName, userID: new Uint8Array(Buffer.from(input.userHandle, 'utf8')),
    challenge: new Uint8Array(Buffer.from(input.challenge, 'base64url')), timeout: REGISTRATION_TIMEOUT_MS, attestationType: 'none',
    excludeCredentials: input.excludeCredentialIds.map((id) => ({ id })),
    authenticatorSelection: authenticatorSelectionOf(input.config), supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
  });
  // The library drops requireResidentKey; Twilio's options carry it (older browsers read it).
  return { ...options, authenticatorSelection: authenticatorSelectionOf(input.config) };
}

export interface AuthenticationInput {
  rpId: string;
  challenge: string;
  timeoutMs: number;
  userVerification: PasskeyConfig['user_verification'];
  /** The factor's credential when the challenge names one; none for a discoverable credential. */
  allowCredentials: ReadonlyArray<{ id: string; transports: readonly string[] }>;
}

export async function authenticationOptions(input: AuthenticationInput): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({
    rpID: input.rpId, challenge: new Uint8Array(Buffer.from(input.challenge, 'base64url')), timeout: input.timeoutMs,
    userVerification: input.userVerification,
    allowCredentials: input.allowCredentials.map((c) => ({ id: c.id, transports: c.transports as AuthenticatorTransport[] })),
  });
}

/** A registered passkey, as stored. */
export interface PasskeyCredential {
  /** base64url credential id. */
  id: string;
  /** base64url COSE public key. */
  publicKey: string;
  signCount: number;
  transports: string[];
}

interface ClientData { type: string; challenge: string; origin: string }

/** The clientDataJSON of an answer, and the checks twofa makes itself (so that each refusal names its reason). */
function checkClientData(encoded: unknown, expected: { type: 'webauthn.create' | 'webauthn.get'; challenge: string; origins: readonly string[] }): CeremonyOutcome<ClientData> {
  if (typeof encoded !== 'string') return refuse('malformed', 'response.clientDataJSON is missing');
  let data: Partial<ClientData>;
  try {
    data = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Partial<ClientData>;
  } catch {
    return refuse('malformed', 'response.clientDataJSON is not base64url JSON');
  }
  if (data.type !== expected.type) return refuse('type', `clientDataJSON.type is ${String(data.type)}, expected ${expected.type}`);
  if (data.challenge !== expected.challenge) return refuse('challenge', 'clientDataJSON.challenge is not the challenge of this ceremony');
  if (typeof data.origin !== 'string' || !expected.origins.includes(data.origin)) {
    return refuse('origin', `the origin ${String(data.origin)} is not one of the relying party's origins (${expected.origins.join(', ')})`);
  }
  return { ok: true, value: data as ClientData };
}

/** The credential as the library reads it: `rawId` is `id` (Twilio's examples send it in hex), `type` defaults to public-key. */
function credentialShape<R>(body: unknown, responseFields: readonly string[]): CeremonyOutcome<R> {
  if (body === null || typeof body !== 'object') return refuse('malformed', 'the body is not a credential');
  const credential = body as Record<string, unknown>;
  const response = credential['response'];
  if (typeof credential['id'] !== 'string' || !/^[A-Za-z0-9_-]{1,1400}$/.test(credential['id'])) return refuse('malformed', 'id must be the base64url credential id');
  if (credential['type'] !== undefined && credential['type'] !== 'public-key') return refuse('malformed', 'type must be public-key');
  if (response === null || typeof response !== 'object') return refuse('malformed', 'response is required');
  for (const field of responseFields) {
    if (typeof (response as Record<string, unknown>)[field] !== 'string') return refuse('malformed', `response.${field} is required`);
  }
  return {
    ok: true,
    value: { ...credential, rawId: credential['id'], type: 'public-key', clientExtensionResults: credential['clientExtensionResults'] ?? {} } as R,
  };
}

/** A ceremony's answer of the expected shape whose client data passes twofa's own checks. */
function checkedAnswer<R extends { response: { clientDataJSON: string } }>(body: unknown, responseFields: readonly string[], expected: Parameters<typeof checkClientData>[1]): CeremonyOutcome<R> {
  const shaped = credentialShape<R>(body, responseFields);
  if (!shaped.ok) return shaped;
  const client = checkClientData(shaped.value.response.clientDataJSON, expected);
  return client.ok ? shaped : client;
}

/** What the library's exceptions mean, for the audit log (its messages are its own, matched loosely). */
function refusalOfError(err: unknown): { ok: false; reason: CeremonyRefusal; detail: string } {
  const message = err instanceof Error ? err.message : String(err);
  if (/RP ?ID/i.test(message)) return refuse('rp_id', 'the authenticator data is for another relying party id');
  if (/counter/i.test(message)) return refuse('counter', `the authenticator's sign counter did not move forward (a cloned authenticator, or a replayed assertion): ${message}`);
  if (/user verification/i.test(message)) return refuse('user_verification', 'the relying party requires user verification, and the authenticator did not verify the user');
  if (/user presence|not present/i.test(message)) return refuse('user_presence', 'the authenticator did not confirm the user\'s presence');
  if (/alg/i.test(message)) return refuse('algorithm', message);
  if (/attestation|certificate|x5c|statement/i.test(message)) return refuse('attestation', message);
  return refuse('malformed', message);
}

export interface RegistrationExpectation {
  challenge: string;
  config: PasskeyConfig;
}

/** Checks the answer of navigator.credentials.create(): the credential to store, or why not. */
export async function verifyRegistration(body: unknown, expected: RegistrationExpectation): Promise<CeremonyOutcome<PasskeyCredential & { userVerified: boolean }>> {
  const shaped = checkedAnswer<RegistrationResponseJSON>(body, ['clientDataJSON', 'attestationObject'], { type: 'webauthn.create', challenge: expected.challenge, origins: expected.config.relying_party.origins });
  if (!shaped.ok) return shaped;
  try {
    const verified = await verifyRegistrationResponse({
      response: shaped.value, expectedChallenge: expected.challenge, expectedOrigin: [...expected.config.relying_party.origins],
      expectedRPID: expected.config.relying_party.id, requireUserVerification: userVerificationRequired(expected.config.user_verification),
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
    if (!verified.verified) return refuse('attestation', 'the attestation does not verify');
    const { credential, userVerified } = verified.registrationInfo;
    return {
      ok: true,
      value: {
        id: credential.id, publicKey: Buffer.from(credential.publicKey).toString('base64url'), signCount: credential.counter,
        transports: (shaped.value.response.transports ?? []).filter((t): t is AuthenticatorTransport => typeof t === 'string').slice(0, 8), userVerified,
      },
    };
  } catch (err) {
    return refusalOfError(err);
  }
}

export interface AuthenticationExpectation {
  challenge: string;
  config: PasskeyConfig;
  credential: PasskeyCredential;
}

/**
 * Checks the answer of navigator.credentials.get() against the factor's credential: the new sign
 * counter to store, or why not. A counter that does not move forward is refused (unless the
 * authenticator keeps none: 0 and 0), as WebAuthn asks of a relying party that sees a clone.
 */
export async function verifyAuthentication(body: unknown, expected: AuthenticationExpectation): Promise<CeremonyOutcome<{ signCount: number; userVerified: boolean }>> {
  const shaped = checkedAnswer<AuthenticationResponseJSON>(body, ['clientDataJSON', 'authenticatorData', 'signature'], { type: 'webauthn.get', challenge: expected.challenge, origins: expected.config.relying_party.origins });
  if (!shaped.ok) return shaped;
  if (shaped.value.id !== expected.credential.id) return refuse('credential', 'the assertion is not made with this factor\'s passkey');
  try {
    const verified = await verifyAuthenticationResponse({
      response: shaped.value, expectedChallenge: expected.challenge, expectedOrigin: [...expected.config.relying_party.origins],
      expectedRPID: expected.config.relying_party.id, requireUserVerification: userVerificationRequired(expected.config.user_verification),
      credential: { id: expected.credential.id, publicKey: new Uint8Array(Buffer.from(expected.credential.publicKey, 'base64url')), counter: expected.credential.signCount },
    });
    if (!verified.verified) return refuse('signature', 'the signature does not verify with the registered public key');
    return { ok: true, value: { signCount: verified.authenticationInfo.newCounter, userVerified: verified.authenticationInfo.userVerified } };
  } catch (err) {
    return refusalOfError(err);
  }
}

/** The credential id an assertion names (its `id`), untrusted: the key to find the factor by. */
export function assertedCredentialId(body: unknown): string | undefined {
  const id = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)['id'] : undefined;
  return typeof id === 'string' && /^[A-Za-z0-9_-]{1,1400}$/.test(id) ? id : undefined;
}
