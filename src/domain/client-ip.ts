// The key a client address is counted under by per-IP limits. One spelling per network: IPv4 as
// dotted quad, IPv4-mapped IPv6 (::ffff:1.2.3.4, ::ffff:102:304) as the IPv4 it maps, and every other
// IPv6 address by its /64, because a single subscriber line or host is routinely given a whole /64 and
// can rotate through it at will. Upper-case, compressed and expanded spellings all give one key.
import net from 'node:net';

/** The eight 16-bit groups of an IPv6 address, or undefined when it is not one. */
export function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  if (net.isIP(text) !== 6) return undefined;
  // A trailing dotted quad (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) becomes two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const missing = 8 - left.length - right.length;
  const groups = tail === undefined ? left : [...left, ...Array.from({ length: missing }, () => 0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/**
 * `4:203.0.113.7` for IPv4 (also when written as IPv4-mapped IPv6), `6:2001:db8:0:1::/64` for IPv6,
 * or undefined for something that is not an IP address.
 */
export function ipRateKey(address: string | undefined): string | undefined {
  if (typeof address !== 'string' || address === '') return undefined;
  if (net.isIP(address) === 4) return `4:${address.split('.').map((o) => String(Number(o))).join('.')}`;
  const groups = ipv6Groups(address);
  if (!groups) return undefined;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) return `4:${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  return `6:${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}
