// Twilio's HTTP Basic credentials, as Twilio takes them:
// - the account's SID and its Auth Token (`twilio(accountSid, authToken)`, most Twilio code): the
//   token is found by its SHA-256, the one the rotation replaced too while its grace lasts
//   (TWOFA_TWILIO_AUTH_TOKEN_GRACE), and is the account's master credential, as on Twilio;
// - the account's SID and one of the account's API keys (where Twilio takes the auth token), or the
//   key's own SID (`SK...`) and the key (where Twilio takes an API key's secret). The key is looked
//   up exactly as an `Authorization: App <key>` one is; the SID must then name the key's own account,
//   or the key itself.
import { timingSafeEqual } from 'node:crypto';
import { accountSid, apiKeySid } from '../domain/twilio-sids.js';
import type { Store } from '../store/store.js';
import { ALL_SCOPES, authenticate, hashApiKey } from './api-keys.js';
import type { Principal } from './context.js';

/** The actor the audit log names for a request made with the account's Auth Token (no API key). */
export const AUTH_TOKEN_ACTOR = 'twilio-auth-token';

/** What an Auth Token is stored and looked up as: its SHA-256, as an API key (128 random bits need no slow hash). */
export function authTokenDigest(token: string): string {
  return hashApiKey(token);
}

/** An Auth Token's shape (32 lower-case hex); anything else is not looked up as one. */
const AUTH_TOKEN = /^[0-9a-f]{32}$/;

/** The user name and password of `Authorization: Basic <base64(user:password)>`, or undefined. */
export function basicCredentials(authorization: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

async function authenticateAuthToken(store: Store, user: string, token: string, now: number): Promise<Principal | undefined> {
  const accountId = await store.twilio.findAuthTokenAccount(authTokenDigest(token), now);
  if (accountId === undefined || !sameText(user, accountSid(accountId))) return undefined;
  return { accountId, keyId: AUTH_TOKEN_ACTOR, scopes: [...ALL_SCOPES] };
}

/**
 * The principal of Basic credentials `<account SID>:<Auth Token>`, `<account SID>:<API key>` or
 * `<API key SID>:<API key>`; undefined for anything else, all alike.
 */
export async function authenticateBasic(store: Store, authorization: string | undefined, now: number): Promise<Principal | undefined> {
  const credentials = basicCredentials(authorization);
  if (!credentials || /\s/.test(credentials.password) || credentials.password.length === 0) return undefined;
  if (credentials.user.startsWith('AC') && AUTH_TOKEN.test(credentials.password)) {
    const principal = await authenticateAuthToken(store, credentials.user, credentials.password, now);
    if (principal) return principal;
  }
  const principal = await authenticate(store, `Bearer ${credentials.password}`);
  if (!principal) return undefined;
  if (!sameText(credentials.user, accountSid(principal.accountId)) && !sameText(credentials.user, apiKeySid(principal.keyId))) return undefined;
  return principal;
}
