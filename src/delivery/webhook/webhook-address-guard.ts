// Keeps tenants' webhooks (POST /api/v1/webhooks) off loopback, private, link-local and other
// non-public addresses, twice: when the URL is saved (its host, and every address its name resolves
// to then), and when the event worker connects (the address actually connected to, through a lookup
// hook on its agents), since a name can resolve to a public address when checked and to 127.0.0.1 a
// second later (DNS rebinding). TWOFA_WEBHOOK_ALLOW_PRIVATE=true turns both checks off.
import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import { isLocalhostName, nonPublicAddressKind } from '../../domain/network-addresses.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a host name resolves to, the way connections resolve it (hosts file, then DNS). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export interface WebhookAddressPolicy {
  /** TWOFA_WEBHOOK_ALLOW_PRIVATE: tests and receivers on a private network the operator trusts. */
  allowPrivate: boolean;
  resolve: HostResolver;
}

export const ADDRESS_REFUSED_CODE = 'ERR_TWOFA_ADDRESS_REFUSED';

/** How long saving a URL waits for its name to resolve; past it the connect-time check still holds. */
const SAVE_RESOLVE_TIMEOUT_MS = 5000;

function refusal(kind: string, how = 'must not point at'): string {
  return `${how} a ${kind} address: webhooks reach only public addresses (the operator can allow private ones with TWOFA_WEBHOOK_ALLOW_PRIVATE)`;
}

/** A host name as URL parsing leaves it: IPv6 literals in brackets. */
function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return net.isIP(bare) === 0 ? undefined : bare;
}

/**
 * Why a URL's host may not receive webhooks, or undefined. An IP literal (URL parsing has already
 * normalised 0x7f.1, 2130706433 and ::ffff:127.0.0.1 to their plain forms) is judged as it is; a
 * name is refused if any address it resolves to is not public. A name that does not resolve (yet)
 * is accepted: every delivery checks again.
 */
export async function checkWebhookHost(hostname: string, policy: WebhookAddressPolicy): Promise<string | undefined> {
  if (policy.allowPrivate) return undefined;
  const literal = ipLiteral(hostname);
  if (literal !== undefined) {
    const kind = nonPublicAddressKind(literal);
    return kind === undefined ? undefined : refusal(kind);
  }
  if (isLocalhostName(hostname)) return refusal('loopback');
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    policy.resolve(hostname).catch(() => []),
    new Promise<ResolvedAddress[]>((resolve) => { timer = setTimeout(() => resolve([]), SAVE_RESOLVE_TIMEOUT_MS); }),
  ]).finally(() => clearTimeout(timer));
  for (const { address } of addresses) {
    const kind = nonPublicAddressKind(address);
    // The resolved address itself is not echoed: it would tell a tenant about the internal network.
    if (kind !== undefined) return refusal(kind, 'resolves to');
  }
  return undefined;
}

function refusedError(hostname: string, kind: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${hostname} resolves to a ${kind} address, which webhooks may not reach (TWOFA_WEBHOOK_ALLOW_PRIVATE)`);
  err.code = ADDRESS_REFUSED_CODE;
  return err;
}

/**
 * The `lookup` hook of the event worker's agents: the addresses the socket will connect to are the
 * ones checked here, so no later resolution can swap in a private one. Any non-public address
 * refuses the whole name (with several addresses the connection may try each of them).
 */
export function guardedLookup(resolve: HostResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then((addresses) => {
      for (const { address } of addresses) {
        const kind = nonPublicAddressKind(address);
        if (kind !== undefined) return callback(refusedError(hostname, kind), '');
      }
      const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
      const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
      const first = usable[0];
      if (first === undefined) {
        const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        err.code = 'ENOTFOUND';
        return callback(err, '');
      }
      if (options.all === true) return callback(null, usable);
      return callback(null, first.address, first.family);
    }, (err: NodeJS.ErrnoException) => callback(err, ''));
  };
}

/** Why the event worker must not connect to this IP literal (the lookup hook never sees literals), or undefined. */
export function refusedLiteral(hostname: string, policy: WebhookAddressPolicy): string | undefined {
  if (policy.allowPrivate) return undefined;
  const literal = ipLiteral(hostname);
  const kind = literal === undefined ? undefined : nonPublicAddressKind(literal);
  return kind === undefined ? undefined : `${hostname} is a ${kind} address, which webhooks may not reach (TWOFA_WEBHOOK_ALLOW_PRIVATE)`;
}
