import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { TwofaClient } from '../../src/client/index.js';
import type { Session } from './session.js';

export const SessionContext = createContext<Session | null>(null);

/** The signed-in operator's client: every page under the shell has one. */
export function useClient(): TwofaClient {
  const session = useContext(SessionContext);
  if (!session) throw new Error('no session');
  return session.client;
}
