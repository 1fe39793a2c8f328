// A software WebAuthn authenticator for the tests that run without a browser: it answers creation
// options with a `none` attestation of a fresh P-256 key, and request options with an ES256
// assertion, exactly as navigator.credentials.create()/get() serialise them (the JSON a page sends).
// The browser tests use Chromium's virtual authenticator instead (test/console/passkeys.test.ts).
import { createHash, createSign, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64u = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

export interface SoftPasskey {
  credentialId: string;
  privateKey: KeyObject;
  rpId: string;
  userHandle: string;
  signCount: number;
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

function counterBytes(count: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(count >>> 0);
  return b;
}

function coseKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  const map = new Map<number, number | Uint8Array>([
    [1, 2], [3, -7], [-1, 1],
    [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))], [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
  ]);
  return isoCBOR.encode(map);
}

function clientData(type: string, challenge: string, origin: string): string {
  return b64u(Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8'));
}

type Options = { publicKey?: Record<string, unknown> } & Record<string, unknown>;
const publicKeyOf = (options: Options) => (options.publicKey ?? options) as Record<string, unknown>;

/** Answers creation options (Twilio's `options` or the bare publicKey): the credential JSON and the passkey kept. */
export function createCredential(options: Options, origin: string, { userVerified = true, startCount = 0 } = {}): { credential: Record<string, unknown>; passkey: SoftPasskey } {
  const pk = publicKeyOf(options);
  const rp = pk['rp'] as { id: string };
  const user = pk['user'] as { id: string };
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const credentialId = randomBytes(16);
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(credentialId.length);
  const authData = Buffer.concat([
    sha256(rp.id), Buffer.from([FLAG_UP | FLAG_AT | (userVerified ? FLAG_UV : 0)]), counterBytes(startCount),
    Buffer.alloc(16), idLength, credentialId, Buffer.from(coseKey(publicKey)),
  ]);
  const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', new Uint8Array(authData)]]) as never);
  const id = b64u(credentialId);
  return {
    credential: {
      id, rawId: id, type: 'public-key', authenticatorAttachment: 'platform', clientExtensionResults: {},
      response: { clientDataJSON: clientData('webauthn.create', pk['challenge'] as string, origin), attestationObject: b64u(attestationObject), transports: ['internal'] },
    },
    passkey: { credentialId: id, privateKey, rpId: rp.id, userHandle: user.id, signCount: startCount },
  };
}

/** Answers request options with an assertion signed by the passkey; its counter moves forward unless told. */
export function getAssertion(options: Options, passkey: SoftPasskey, origin: string, { userVerified = true, signCount }: { userVerified?: boolean; signCount?: number } = {}): Record<string, unknown> {
  const pk = publicKeyOf(options);
  passkey.signCount = signCount ?? passkey.signCount + 1;
  const authData = Buffer.concat([sha256((pk['rpId'] as string | undefined) ?? passkey.rpId), Buffer.from([FLAG_UP | (userVerified ? FLAG_UV : 0)]), counterBytes(passkey.signCount)]);
  const clientDataJSON = clientData('webauthn.get', pk['challenge'] as string, origin);
  const signer = createSign('sha256');
  signer.update(Buffer.concat([authData, sha256(Buffer.from(clientDataJSON, 'base64url'))]));
  return {
    id: passkey.credentialId, rawId: passkey.credentialId, type: 'public-key', authenticatorAttachment: 'platform', clientExtensionResults: {},
    response: { clientDataJSON, authenticatorData: b64u(authData), signature: b64u(signer.sign(passkey.privateKey)), userHandle: passkey.userHandle },
  };
}
