// The signed-in operator: an API key with the 2fa:manage scope, kept in this tab's session storage
// (gone when the tab closes, never in a URL, never sent anywhere but this service's API).
import { createTwofaClient, TwofaApiError, type Me, type TwofaClient } from '../../src/client/index.js';

const STORAGE_KEY = 'twofa.console.apiKey';
export const MANAGE_SCOPE = '2fa:manage';

export interface Session {
  client: TwofaClient;
  me: Me;
}

function clientFor(apiKey: string): TwofaClient {
  return createTwofaClient({ baseUrl: window.location.origin, apiKey, timeoutMs: 15_000 });
}

export function storedKey(): string | null {
  try {
    return window.sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** Checks the key with the service; keeps it only when it may manage the account. */
export async function signIn(apiKey: string): Promise<Session> {
  const client = clientFor(apiKey.trim());
  const me = await client.account.me();
  if (!me.key.scopes.includes(MANAGE_SCOPE)) {
    throw new TwofaApiError({
      status: 403, messageId: 'FORBIDDEN',
      text: `This API key has the scopes ${me.key.scopes.join(', ')}; the console needs a key with ${MANAGE_SCOPE}.`,
      validationErrors: { apiKey: [`needs the ${MANAGE_SCOPE} scope`] },
    });
  }
  window.sessionStorage.setItem(STORAGE_KEY, apiKey.trim());
  return { client, me };
}

export function signOut(): void {
  window.sessionStorage.removeItem(STORAGE_KEY);
}
