// Parsing and matching of the operator's price list (TWOFA_PRICES_FILE; interfaces in prices.ts).
// The list is read from CSV lines `transport,country,prefix,price,currency`: an optional header line
// of exactly those names, `#` comments and blank lines are skipped. A list with one bad line is
// refused whole (every bad line named), so that a typo never leaves some messages unpriced.
import { isSupportedCountry } from 'libphonenumber-js';
import { formatMicros, parseMicros } from './money.js';
import type { Price, PriceList, PriceMatch } from './prices.js';

/** A country a phone number can be in (libphonenumber's list of ISO 3166-1 alpha-2 codes): `UK` is not one, `GB` is. */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/i.test(code) && isSupportedCountry(code.toUpperCase());
}

export const PRICE_LIST_HEADER = 'transport,country,prefix,price,currency';

/** A price list that failed to parse: every line at fault, for the operator to fix at once. */
export class PriceListError extends Error {
  constructor(readonly problems: string[], source: string) {
    super(`the price list ${source} is refused: ${problems.join('; ')}`);
    this.name = 'PriceListError';
  }
}

interface PriceLine extends PriceMatch {
  micros: number;
}

/** A parsed price list: lines indexed by transport, prefix lines longest first. */
export class ParsedPriceList implements PriceList {
  private readonly byTransport = new Map<string, { prefixed: PriceLine[]; countries: Map<string, PriceLine> }>();

  constructor(readonly lines: readonly PriceMatch[], private readonly countryOf: (to: string) => string | undefined) {
    for (const line of lines) {
      let entry = this.byTransport.get(line.transport);
      if (!entry) this.byTransport.set(line.transport, (entry = { prefixed: [], countries: new Map() }));
      const priced = { ...line, micros: parseMicros(line.amount)! };
      if (line.prefix === null) entry.countries.set(line.country, priced);
      else entry.prefixed.push(priced);
    }
    for (const entry of this.byTransport.values()) entry.prefixed.sort((a, b) => b.prefix!.length - a.prefix!.length);
  }

  priceOf(transport: string, to: string): PriceMatch | undefined {
    const entry = this.byTransport.get(transport);
    if (!entry) return undefined;
    const digits = to.startsWith('+') ? to.slice(1) : to;
    const line = entry.prefixed.find((l) => digits.startsWith(l.prefix!)) ?? entry.countries.get(this.countryOf(digits) ?? '');
    return line && { transport: line.transport, country: line.country, prefix: line.prefix, amount: line.amount, currency: line.currency };
  }

  get size(): number {
    return this.lines.length;
  }
}

/** An empty list: every message is unpriced (no TWOFA_PRICES_FILE). */
export const NO_PRICES: PriceList = { priceOf: () => undefined };

/**
 * Parses the CSV text of a price list; throws PriceListError naming every bad line. `countryOf`
 * tells a number's ISO country (domain/destinations.ts phoneCountry) for the country-wide lines.
 */
export function parsePriceList(text: string, source: string, countryOf: (to: string) => string | undefined): ParsedPriceList {
  const problems: string[] = [];
  const lines: PriceMatch[] = [];
  const seen = new Set<string>();
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    const at = `line ${index + 1}`;
    if (line === '' || line.startsWith('#')) continue;
    if (line.replace(/\s/g, '').toLowerCase() === PRICE_LIST_HEADER) continue;
    const fields = line.split(',').map((f) => f.trim());
    if (fields.length !== 5) {
      problems.push(`${at}: expected 5 fields (${PRICE_LIST_HEADER}), found ${fields.length}`);
      continue;
    }
    const [transport, country, prefix, amount, currency] = fields as [string, string, string, string, string];
    const before = problems.length;
    if (transport === '') problems.push(`${at}: the transport is empty`);
    if (!isCountryCode(country)) problems.push(`${at}: country "${country}" is not an ISO 3166-1 alpha-2 code (e.g. GB)`);
    if (prefix !== '' && !/^\+?[0-9]{1,15}$/.test(prefix)) problems.push(`${at}: prefix "${prefix}" is not international digits (e.g. 447, calling code first)`);
    if (parseMicros(amount) === undefined) problems.push(`${at}: price "${amount}" is not a decimal amount of at most 6 decimals (e.g. 0.0450)`);
    if (!/^[A-Z]{3}$/i.test(currency)) problems.push(`${at}: currency "${currency}" is not an ISO 4217 code (e.g. EUR)`);
    if (problems.length > before) continue;
    const entry: PriceMatch = {
      transport, country: country.toUpperCase(), prefix: prefix === '' ? null : prefix.replace(/^\+/, ''),
      amount: formatMicros(parseMicros(amount)!), currency: currency.toUpperCase(),
    };
    const key = `${entry.transport}|${entry.prefix === null ? `country:${entry.country}` : `prefix:${entry.prefix}`}`;
    if (seen.has(key)) problems.push(`${at}: ${entry.transport} ${entry.prefix === null ? entry.country : `prefix ${entry.prefix}`} is priced twice`);
    seen.add(key);
    lines.push(entry);
  }
  if (problems.length > 0) throw new PriceListError(problems, source);
  return new ParsedPriceList(lines, countryOf);
}

/** What one message cost, recorded on it when its transport took it (store/price-store.ts). */
export interface MessagePrice {
  /** The message's channel (a resend may take another than its PIN's). */
  channel: string;
  /**
   * The transport the message was priced by, as price list lines and the spend statistics name it: a
   * named transport's operator name (TWOFA_TRANSPORT_<NAME>) when one took it, else the transport's own.
   */
  transport: string;
  /** SMS parts; 1 for any other channel: the price list's price is per part. */
  segments: number;
  /** Micro-units for the whole message; null: no known price. */
  amount: number | null;
  currency: string | null;
  /** ISO country of the destination (the price line's, else the number's); null for email. */
  country: string | null;
  /** The price line's prefix (null: country-wide, or no line). */
  prefix: string | null;
  /** list: the price list x parts; provider: what the provider said it cost; none: unknown. */
  source: 'list' | 'provider' | 'none';
}

/**
 * The price of a message through `transport` to `to`: what the provider reported (the whole
 * message, all parts), else the price list's line x `segments`, else unknown.
 */
export function priceMessage(list: PriceList, message: { channel: string; transport: string; to: string; segments: number }, countryOf: (to: string) => string | undefined, reported?: Price): MessagePrice {
  const line = message.channel === 'email' ? undefined : list.priceOf(message.transport, message.to);
  const country = line?.country ?? (message.channel === 'email' ? null : countryOf(message.to) ?? null);
  const base = { channel: message.channel, transport: message.transport, segments: message.segments, country, prefix: line?.prefix ?? null };
  const reportedMicros = reported && parseMicros(reported.amount);
  if (reported && reportedMicros !== undefined && /^[A-Z]{3}$/.test(reported.currency)) return { ...base, amount: reportedMicros, currency: reported.currency, source: 'provider' };
  if (line) return { ...base, amount: parseMicros(line.amount)! * message.segments, currency: line.currency, source: 'list' };
  return { ...base, amount: null, currency: null, source: 'none' };
}
