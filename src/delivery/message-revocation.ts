// Taking back what a provider has not delivered yet once the PIN no longer needs it (the Telegram
// Gateway's revokeVerificationMessage): a code that arrives after the user has verified, or after
// the PIN was locked, only confuses. It runs after the verify answer, one PIN at a time, off the
// request path: verify never waits for a provider. It is best effort and not durable: a revocation
// lost to a restart leaves a message that the provider's own ttl (the PIN's remaining life) ends.
import type { Logger } from 'pino';
import type { Store } from '../store/store.js';
import { canRevoke } from './providers/telegram/telegram-transport.js';
import { routeLeaves } from './routing/routed-transport.js';
import type { Transport } from './transport.js';

/** Revocations waiting beyond this many are dropped (and logged): a burst must not grow memory. */
const QUEUE_MAX = 1000;

export interface MessageRevoker {
  /** Queues the revocation of every message of the PIN sent through a transport that can revoke. */
  pinEnded(accountId: string, pinId: string): void;
  /** Resolves once the queued revocations are done (shutdown). */
  drain(): Promise<void>;
}

/** A revoker for the transports that can revoke, or undefined when none can (nothing is ever queued). */
export function createMessageRevoker(transports: (Transport | undefined)[], store: Store, logger: Logger): MessageRevoker | undefined {
  const revocable = new Map<string, Transport & { revokeMessage(id: string): Promise<boolean> }>();
  for (const transport of transports) {
    for (const leaf of transport === undefined ? [] : routeLeaves(transport)) if (canRevoke(leaf)) revocable.set(leaf.name, leaf);
  }
  if (revocable.size === 0) return undefined;

  let queued = 0;
  let chain: Promise<void> = Promise.resolve();
  const revoke = async (accountId: string, pinId: string) => {
    const history = await store.listDeliveryEvents(accountId, pinId);
    const done = new Set<string>();
    for (const event of history) {
      const transport = event.transport === null ? undefined : revocable.get(event.transport);
      if (transport === undefined || event.providerMessageId === null || done.has(event.providerMessageId)) continue;
      done.add(event.providerMessageId);
      const revoked = await transport.revokeMessage(event.providerMessageId);
      logger.debug({ pinId, transport: transport.name, revoked }, 'asked the provider to revoke an undelivered message');
    }
  };
  return {
    pinEnded(accountId, pinId) {
      if (queued >= QUEUE_MAX) {
        logger.warn({ pinId }, 'message revocation dropped: too many waiting');
        return;
      }
      queued += 1;
      // setImmediate: after the verify answer has been written, not between its awaits.
      chain = chain.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(() => revoke(accountId, pinId)).catch((err: unknown) => {
        logger.warn({ pinId, err: err instanceof Error ? err.message : String(err) }, 'message revocation failed');
      }).finally(() => { queued -= 1; });
    },
    drain: () => chain,
  };
}
