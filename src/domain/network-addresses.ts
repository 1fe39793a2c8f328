// Which IP addresses a tenant's webhook may reach. A subscription URL is chosen by an account, not by
// the operator: without this check it could make the service POST to its own loopback ports, the
// cloud metadata endpoint (169.254.169.254) or anything on the private network (SSRF). Operator DSNs
// are not checked: the operator chose them.
import net from 'node:net';
import { ipv6Groups } from './client-ip.js';

export type NonPublicKind = 'unspecified' | 'loopback' | 'private' | 'link-local' | 'unique-local' | 'multicast' | 'reserved';

/** [first address as a 32-bit number, prefix length, kind] */
const IPV4_RANGES: [string, number, NonPublicKind][] = [
  ['0.0.0.0', 8, 'unspecified'], // "this network": 0.0.0.0 connects to the local host
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private'], // carrier-grade NAT, shared address space
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'], // also the cloud metadata endpoints
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // and 255.255.255.255, broadcast
];

function ipv4Number(address: string): number {
  return address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

const IPV4_TABLE = IPV4_RANGES.map(([first, bits, kind]) => ({ first: ipv4Number(first), size: 2 ** (32 - bits), kind }));

function ipv4Kind(value: number): NonPublicKind | undefined {
  return IPV4_TABLE.find((r) => value >= r.first && value < r.first + r.size)?.kind;
}

function ipv6Kind(groups: number[]): NonPublicKind | undefined {
  const [g0, g1, g2, , g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const embeddedV4 = g6 * 65536 + g7;
  const zeroUpTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g7 === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses reach the IPv4 address.
  if (zeroUpTo(5) && g5 === 0xffff) return ipv4Kind(embeddedV4);
  if (zeroUpTo(6)) return ipv4Kind(embeddedV4);
  // SIIT's IPv4-translated addresses (::ffff:0:a.b.c.d, RFC 2765) reach it through a stateless translator.
  if (zeroUpTo(4) && g4 === 0xffff && g5 === 0) return ipv4Kind(embeddedV4);
  // NAT64 (64:ff9b::a.b.c.d) reaches the IPv4 address through the translator; a public one is what
  // DNS64 answers for an IPv4-only receiver, so it stays allowed.
  if (g0 === 0x64 && g1 === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return ipv4Kind(embeddedV4);
  // Local-use NAT64 (64:ff9b:1::/48, RFC 8215) serves only the operator's own network, and where its
  // prefix ends, so where the IPv4 address sits, is the operator's choice: none of it is public.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return 'private';
  // 6to4 (2002:AABB:CCDD::) carries the IPv4 address in its second and third groups.
  if (g0 === 0x2002) return ipv4Kind(g1 * 65536 + g2);
  // Teredo (2001::/32) tunnels to a client behind a NAT through its server's IPv4 address (groups 2-3)
  // and the client's, obfuscated, in the last two: either can be private, and the public Teredo relays
  // it would need are gone, so the whole prefix is refused.
  if (g0 === 0x2001 && g1 === 0) return 'reserved';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // site-local, deprecated but still routed inside sites
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  return undefined;
}

/**
 * What makes an address unfit for a tenant's webhook, or undefined when it is a public unicast
 * address. Anything that is not an IP address at all is 'reserved' (refused, never guessed at).
 */
export function nonPublicAddressKind(address: string): NonPublicKind | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (net.isIPv4(bare)) return ipv4Kind(ipv4Number(bare));
  const groups = ipv6Groups(bare);
  return groups === undefined ? 'reserved' : ipv6Kind(groups);
}

/** `localhost` and its subdomains name the local host whatever DNS says (RFC 6761). */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
