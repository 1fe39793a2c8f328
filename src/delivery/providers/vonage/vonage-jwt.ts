// The JWT that authenticates Vonage Voice API requests: RS256-signed with the private key of a Vonage
// application, with the application's id in the claims
// (https://developer.vonage.com/en/getting-started/concepts/authentication#json-web-tokens).
// Short-lived and unique per request (jti), so a leaked token is of little use.
import { createPrivateKey, randomUUID, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** Token lifetime: Vonage's default is 15 minutes; one request needs far less. */
const LIFETIME_SECONDS = 300;

export function vonageJwt(applicationId: string, privateKey: KeyObject, nowSeconds: number = Math.floor(Date.now() / 1000)): string {
  const header = { alg: 'RS256', typ: 'JWT' };
  const claims = { application_id: applicationId, iat: nowSeconds, nbf: nowSeconds - 30, exp: nowSeconds + LIFETIME_SECONDS, jti: randomUUID() };
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = sign('RSA-SHA256', Buffer.from(signingInput, 'utf8'), privateKey);
  return `${signingInput}.${signature.toString('base64url')}`;
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** The application's private key (the PEM file Vonage's dashboard downloads); throws a readable Error. */
export function readVonagePrivateKey(variable: string, path: string): KeyObject {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`${variable}: cannot read private_key_file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error(`${variable}: private_key_file ${path} does not hold a PEM private key (the private.key of your Vonage application)`);
  }
  if (key.asymmetricKeyType !== 'rsa') throw new Error(`${variable}: private_key_file ${path} must hold an RSA key (Vonage signs with RS256)`);
  return key;
}
