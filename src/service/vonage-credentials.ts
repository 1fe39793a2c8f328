// How a Vonage Verify call authenticates, as Vonage's API accepts it:
// - `Authorization: Bearer <JWT>` signed RS256 by a Vonage application's private key, with Vonage's
//   claims (`application_id`, `iat`, `exp`, `jti`): the application is a twofa application whose
//   public key was registered (PUT /api/v1/vonage/applications/{applicationId});
// - `Authorization: Basic api_key:api_secret`, where api_key is the id of a twofa application and
//   api_secret an API key of its account (with 2fa:pin:send).
// Either way the call is bound to that application: Vonage's calls name none of their own.
import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { authenticate, SCOPE_PIN_SEND } from './api-keys.js';
import type { Principal, ServiceContext } from './context.js';
import { readApplication } from './effective-records.js';
import { basicCredentials } from './twilio-credentials.js';

export interface VonageCaller {
  principal: Principal;
  /** The twofa application the call works in. */
  applicationId: string;
}

/** The audit actor of a call signed by a Vonage application's key. */
export const vonageApplicationActor = (applicationId: string) => `vonage-application:${applicationId}`;

/** Vonage's JWTs live at most a day (its own limit); the SDK makes them live 15 minutes. */
const MAX_TOKEN_LIFETIME_S = 24 * 3600;
/** Clocks of the signer and of twofa may differ this much. */
const CLOCK_SKEW_S = 60;

/** An RSA public key in PEM, as Vonage shows an application's; undefined when it is not one. */
export function rsaPublicKey(pem: string): KeyObject | undefined {
  try {
    const key = createPublicKey(pem);
    return key.asymmetricKeyType === 'rsa' ? key : undefined;
  } catch {
    return undefined;
  }
}

function jsonPart(part: string | undefined): Record<string, unknown> | undefined {
  if (part === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

async function authenticateJwt(ctx: ServiceContext, token: string, now: number): Promise<VonageCaller | undefined> {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  // RS256 only: an HS256 or `none` token must never be read as signed by the application's key.
  if (jsonPart(headerPart)?.['alg'] !== 'RS256') return undefined;
  const claims = jsonPart(payloadPart);
  const applicationId = claims?.['application_id'];
  if (typeof applicationId !== 'string' || applicationId.length === 0 || applicationId.length > 64) return undefined;
  const row = await ctx.store.vonage.getApplication(applicationId);
  const key = row && rsaPublicKey(row.publicKey);
  if (!row || !key) return undefined;
  if (!verifySignature('RSA-SHA256', Buffer.from(`${headerPart}.${payloadPart}`), key, Buffer.from(signaturePart, 'base64url'))) return undefined;
  const seconds = Math.floor(now / 1000);
  const { iat, exp, nbf } = claims!;
  if (!isNumber(iat) || !isNumber(exp) || exp <= seconds - CLOCK_SKEW_S || iat > seconds + CLOCK_SKEW_S || exp - iat > MAX_TOKEN_LIFETIME_S) return undefined;
  if (nbf !== undefined && (!isNumber(nbf) || nbf > seconds + CLOCK_SKEW_S)) return undefined;
  if (!(await readApplication(ctx, row.accountId, applicationId))) return undefined;
  return { principal: { accountId: row.accountId, keyId: vonageApplicationActor(applicationId), scopes: [SCOPE_PIN_SEND] }, applicationId };
}

async function authenticateApiKey(ctx: ServiceContext, authorization: string): Promise<VonageCaller | undefined> {
  const credentials = basicCredentials(authorization);
  if (!credentials || credentials.password.length === 0 || /\s/.test(credentials.password)) return undefined;
  const principal = await authenticate(ctx.store, `Bearer ${credentials.password}`);
  if (!principal) return undefined;
  // The api_key names an application of the key's account; any other is a failed login like a wrong key.
  if (!(await readApplication(ctx, principal.accountId, credentials.user))) return undefined;
  return { principal, applicationId: credentials.user };
}

/** The caller of a Vonage call, or undefined for anything else, all alike. */
export async function authenticateVonage(ctx: ServiceContext, authorization: string | undefined, now: number): Promise<VonageCaller | undefined> {
  if (authorization === undefined) return undefined;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (bearer?.[1]) return authenticateJwt(ctx, bearer[1], now);
  return /^Basic\s/i.test(authorization) ? authenticateApiKey(ctx, authorization) : undefined;
}
