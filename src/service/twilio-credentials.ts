// Twilio's HTTP Basic credentials: the account's SID as the user name and one of the account's API
// keys as the password (where Twilio takes the auth token), or the key's own SID (`SK...`) and the
// key (where Twilio takes an API key's secret). The key is looked up exactly as an
// `Authorization: App <key>` one is; the SID must then name the key's own account, or the key itself.
import { accountSid, apiKeySid } from '../domain/twilio-sids.js';
import type { Store } from '../store/store.js';
import { authenticate } from './api-keys.js';
import type { Principal } from './context.js';

/** The user name and password of `Authorization: Basic <base64(user:password)>`, or undefined. */
export function basicCredentials(authorization: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The principal of Basic credentials `<account SID>:<API key>` or `<API key SID>:<API key>`; undefined for anything else, all alike. */
export async function authenticateBasic(store: Store, authorization: string | undefined): Promise<Principal | undefined> {
  const credentials = basicCredentials(authorization);
  if (!credentials || /\s/.test(credentials.password) || credentials.password.length === 0) return undefined;
  const principal = await authenticate(store, `Bearer ${credentials.password}`);
  if (!principal) return undefined;
  if (credentials.user !== accountSid(principal.accountId) && credentials.user !== apiKeySid(principal.keyId)) return undefined;
  return principal;
}
