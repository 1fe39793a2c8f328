// The operator's routes table (TWOFA_ROUTES, or `routes` in twofa.config.json): ordered rules that pick,
// for a channel and a phone number, the named transports to try in order, the sender and the
// regulatory fields (India's DLT ids). Pure: parsing refuses a table whole with every problem named,
// matching is a lookup, and the cheapest strategy is decided from figures given to it (prices and
// measured conversions). docs/routing.md is the operator's guide to all of it.
import { CHANNELS, type Channel } from './channels.js';
import type { Price } from './prices.js';
import { rejectsAlphanumericSenders, SENDER_KINDS, senderKindOf, validateSenderOfKind, type SenderId, type SenderKind } from './sender-ids.js';

/** Channels whose destinations are phone numbers: the ones routes apply to. */
export const ROUTED_CHANNELS = ['sms', 'voice', 'whatsapp', 'telegram'] as const satisfies readonly Channel[];
export type RoutedChannel = (typeof ROUTED_CHANNELS)[number];

export const ROUTE_STRATEGIES = ['ordered', 'cheapest'] as const;
export type RouteStrategy = (typeof ROUTE_STRATEGIES)[number];

/** Fields some countries' regulators require on every message, passed to transports that take them. */
export interface RegulatoryFields {
  /** India DLT: the Principal Entity id of the sender's registration. */
  dltEntityId?: string;
  /** India DLT: the id of the registered content template. */
  dltTemplateId?: string;
}

export interface RouteRule {
  /** Its position in the table (0-based): explain names rules by it, and by `name` when given. */
  index: number;
  name: string | undefined;
  channel: RoutedChannel;
  /** ISO 3166-1 alpha-2, upper case. */
  countries: string[];
  /** Leading digits of the E.164 number (no '+'). */
  prefixes: string[];
  /** Named transports, in the order they are tried (failover, per message). */
  transports: string[];
  strategy: RouteStrategy;
  /** For `cheapest`: the least conversion (verified / sent) a transport must show to be chosen on price. */
  minConversion: number | undefined;
  sender: SenderId | undefined;
  /** The sender used where the country rejects the chosen sender's kind (alphanumeric). */
  fallbackSender: SenderId | undefined;
  regulatory: RegulatoryFields;
}

export type RoutesParse = { ok: true; rules: RouteRule[] } | { ok: false; errors: string[] };

const RULE_KEYS = ['name', 'channel', 'countries', 'prefixes', 'transports', 'strategy', 'minConversion', 'sender', 'fallbackSender', 'regulatory'];
const REGULATORY_KEYS: (keyof RegulatoryFields)[] = ['dltEntityId', 'dltTemplateId'];
export const TRANSPORT_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * Reads a routes table (the parsed JSON) against the named transports it may use. Every problem is
 * collected, each with the rule's place (`routes[2].transports[0]`), so that an operator fixes the
 * table in one go; a table with any problem is refused whole.
 */
export function parseRoutes(value: unknown, transportNames: readonly string[]): RoutesParse {
  const errors: string[] = [];
  if (!Array.isArray(value)) return { ok: false, errors: ['routes must be a JSON array of rules, e.g. [{"channel":"sms","countries":["IN"],"transports":["smsc"]}]'] };
  const rules: RouteRule[] = [];
  value.forEach((raw, index) => {
    const at = `routes[${index}]`;
    const problems: string[] = [];
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      errors.push(`${at}: must be an object`);
      return;
    }
    const r = raw as Record<string, unknown>;
    for (const key of Object.keys(r)) if (!RULE_KEYS.includes(key)) problems.push(`${at}: unknown field "${key}" (known: ${RULE_KEYS.join(', ')})`);
    const name = optionalString(r['name'], `${at}.name`, problems);
    const channel = r['channel'];
    if (!ROUTED_CHANNELS.includes(channel as RoutedChannel)) {
      problems.push(`${at}.channel: must be one of ${ROUTED_CHANNELS.join(', ')}${CHANNELS.includes(channel as Channel) ? ' (email has no country to route by)' : ''}`);
    }
    const countries = stringList(r['countries'], `${at}.countries`, problems).map((c) => c.toUpperCase());
    countries.forEach((c, i) => { if (!/^[A-Z]{2}$/.test(c)) problems.push(`${at}.countries[${i}]: "${c}" is not an ISO 3166-1 alpha-2 code such as IN or US`); });
    const prefixes = stringList(r['prefixes'], `${at}.prefixes`, problems).map((p) => p.replace(/^\+/, ''));
    prefixes.forEach((p, i) => { if (!/^\d{1,15}$/.test(p)) problems.push(`${at}.prefixes[${i}]: "${p}" is not the leading digits of an international number, e.g. 4479`); });
    const transports = stringList(r['transports'], `${at}.transports`, problems);
    if (r['transports'] === undefined || transports.length === 0) problems.push(`${at}.transports: name at least one transport (${describeNames(transportNames)})`);
    transports.forEach((t, i) => { if (!transportNames.includes(t)) problems.push(`${at}.transports[${i}]: unknown transport "${t}" (${describeNames(transportNames)})`); });
    if (new Set(transports).size !== transports.length) problems.push(`${at}.transports: a transport is named twice`);
    const strategy = (r['strategy'] ?? 'ordered') as RouteStrategy;
    if (!ROUTE_STRATEGIES.includes(strategy)) problems.push(`${at}.strategy: must be ${ROUTE_STRATEGIES.join(' or ')}`);
    const minConversion = r['minConversion'];
    if (minConversion !== undefined && (typeof minConversion !== 'number' || !(minConversion >= 0 && minConversion <= 1))) problems.push(`${at}.minConversion: must be a number from 0 to 1, e.g. 0.6`);
    if (strategy === 'cheapest' && minConversion === undefined) problems.push(`${at}.minConversion: the cheapest strategy needs the least conversion a transport must show, e.g. "minConversion": 0.6`);
    if (strategy !== 'cheapest' && minConversion !== undefined) problems.push(`${at}.minConversion: only a rule with "strategy": "cheapest" takes it`);
    const sender = senderOf(r['sender'], `${at}.sender`, problems);
    const fallbackSender = senderOf(r['fallbackSender'], `${at}.fallbackSender`, problems);
    if (fallbackSender?.kind === 'alphanumeric') problems.push(`${at}.fallbackSender: must be a long_code or short_code (it stands in where letters are rejected)`);
    // A rule for named countries that reject letters, with letters and nowhere to fall back: a message
    // would go out with a sender its networks drop. Caught here, not at the first PIN.
    const rejecting = countries.filter((c) => rejectsAlphanumericSenders(c));
    if (sender?.kind === 'alphanumeric' && fallbackSender === undefined && rejecting.length > 0) {
      problems.push(`${at}.fallbackSender: ${rejecting.join(', ')} reject alphanumeric senders; give a long_code or short_code fallbackSender`);
    }
    const regulatory = regulatoryOf(r['regulatory'], `${at}.regulatory`, problems);
    errors.push(...problems);
    if (problems.length === 0) {
      rules.push({ index, name, channel: channel as RoutedChannel, countries, prefixes, transports, strategy, minConversion: minConversion as number | undefined, sender, fallbackSender, regulatory });
    }
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, rules };
}

function describeNames(names: readonly string[]): string {
  return names.length === 0 ? 'no named transports are configured: set TWOFA_TRANSPORT_<NAME>=<dsn>' : `named transports: ${names.join(', ')}`;
}

function optionalString(value: unknown, at: string, problems: string[]): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    problems.push(`${at}: must be a non-empty string`);
    return undefined;
  }
  return value;
}

function stringList(value: unknown, at: string, problems: string[]): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    problems.push(`${at}: must be an array of strings`);
    return [];
  }
  return value as string[];
}

function senderOf(value: unknown, at: string, problems: string[]): SenderId | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    problems.push(`${at}: must be an object such as {"id": "Acme", "kind": "alphanumeric"}`);
    return undefined;
  }
  const { id, kind, ...rest } = value as Record<string, unknown>;
  for (const key of Object.keys(rest)) problems.push(`${at}: unknown field "${key}" (known: id, kind)`);
  if (!SENDER_KINDS.includes(kind as SenderKind)) {
    problems.push(`${at}.kind: must be one of ${SENDER_KINDS.join(', ')}`);
    return undefined;
  }
  if (typeof id !== 'string') {
    problems.push(`${at}.id: must be a string`);
    return undefined;
  }
  const problem = validateSenderOfKind(id, kind as SenderKind);
  if (problem !== null) {
    problems.push(`${at}.id: "${id}" ${problem}`);
    return undefined;
  }
  return { id, kind: kind as SenderKind };
}

function regulatoryOf(value: unknown, at: string, problems: string[]): RegulatoryFields {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    problems.push(`${at}: must be an object such as {"dltEntityId": "1101234567890123456", "dltTemplateId": "1107123456789012345"}`);
    return {};
  }
  const fields: RegulatoryFields = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    if (!REGULATORY_KEYS.includes(key as keyof RegulatoryFields)) {
      problems.push(`${at}: unknown field "${key}" (known: ${REGULATORY_KEYS.join(', ')})`);
      continue;
    }
    // DLT ids are 19-digit numbers; the registries have issued other lengths, so any run of digits goes.
    if (typeof field !== 'string' || !/^\d{1,30}$/.test(field)) {
      problems.push(`${at}.${key}: must be a string of digits, as the DLT registry issued it`);
      continue;
    }
    fields[key as keyof RegulatoryFields] = field;
  }
  return fields;
}

/** Why a rule matched: the longest of its prefixes the number starts with, its country, or neither (a catch-all). */
export type RuleMatch =
  | { by: 'prefix'; prefix: string }
  | { by: 'country'; country: string }
  | { by: 'default' };

export interface MatchedRule {
  rule: RouteRule;
  match: RuleMatch;
  /** The other rules of the channel that also matched the number, and lost. */
  outranked: { rule: RouteRule; match: RuleMatch }[];
}

/**
 * The rule for a number: the one whose prefix is the longest the number starts with; else the first
 * whose countries hold the number's country; else the first without countries or prefixes (a
 * catch-all). Among equals the first in the table wins. Undefined: no rule of the channel matches.
 */
export function matchRoute(rules: readonly RouteRule[], channel: Channel, to: string, country: string | undefined): MatchedRule | undefined {
  const digits = to.replace(/^\+/, '');
  const candidates: { rule: RouteRule; match: RuleMatch; rank: number }[] = [];
  for (const rule of rules) {
    if (rule.channel !== channel) continue;
    const prefix = rule.prefixes.filter((p) => digits.startsWith(p)).sort((a, b) => b.length - a.length)[0];
    if (prefix !== undefined) candidates.push({ rule, match: { by: 'prefix', prefix }, rank: 1 + prefix.length });
    else if (country !== undefined && rule.countries.includes(country)) candidates.push({ rule, match: { by: 'country', country }, rank: 1 });
    else if (rule.prefixes.length === 0 && rule.countries.length === 0) candidates.push({ rule, match: { by: 'default' }, rank: 0 });
  }
  if (candidates.length === 0) return undefined;
  // A stable sort keeps the table's order among equal ranks: the first rule wins.
  const ranked = [...candidates].sort((a, b) => b.rank - a.rank);
  const [best, ...rest] = ranked as [typeof ranked[number], ...typeof ranked];
  return { rule: best.rule, match: best.match, outranked: rest.map(({ rule, match }) => ({ rule, match })) };
}

/** Where the sender a message goes out with came from (docs/routing.md, "Which sender"). */
export type SenderSource = 'request' | 'application' | 'template' | 'route' | 'fallback' | 'transport';

/** The senders that may apply to one message, each from its own place. */
export interface SenderCandidates {
  /** Given with the send request itself (a dialect's `from`). */
  request?: string | undefined;
  /** The application's own sender for the destination's country (its brand), set through /api/v1. */
  application?: SenderId | undefined;
  /** The message template's senderId. */
  template?: string | undefined;
}

export interface SenderChoice {
  /** Undefined: none applies, the transport's own default (its DSN's `from`) goes. */
  sender: SenderId | undefined;
  source: SenderSource;
  /** Why the first choice was set aside, when it was (a country that rejects letters). */
  note?: string;
}

/**
 * The sender of a routed message. Precedence, most specific first: the request's sender, the
 * application's sender for the country, the template's senderId, the route's sender; none of them:
 * the transport's default. Whatever wins, a country that rejects alphanumeric senders gets the
 * route's fallback sender instead (or the transport's default when the rule has none).
 */
export function chooseSender(candidates: SenderCandidates, rule: Pick<RouteRule, 'sender' | 'fallbackSender'> | undefined, country: string | undefined): SenderChoice {
  const given: [SenderSource, SenderId | undefined][] = [
    ['request', candidates.request === undefined ? undefined : { id: candidates.request, kind: senderKindOf(candidates.request) }],
    ['application', candidates.application],
    ['template', candidates.template === undefined ? undefined : { id: candidates.template, kind: senderKindOf(candidates.template) }],
    ['route', rule?.sender],
  ];
  const first = given.find(([, sender]) => sender !== undefined);
  if (first === undefined) return { sender: undefined, source: 'transport' };
  const [source, sender] = first as [SenderSource, SenderId];
  if (sender.kind !== 'alphanumeric' || !rejectsAlphanumericSenders(country)) return { sender, source };
  const note = `${country} rejects alphanumeric senders: ${sender.id} (${source}) set aside`;
  return rule?.fallbackSender !== undefined
    ? { sender: rule.fallbackSender, source: 'fallback', note }
    : { sender: undefined, source: 'transport', note: `${note}; the rule has no fallbackSender, so the transport's default goes` };
}

/** A transport's measured conversion in one country, over the window the cheapest strategy reads. */
export interface Conversion {
  sent: number;
  verified: number;
}

/** Sends a transport must have made to a country within the window before its conversion is believed. */
export const MIN_CONVERSION_SAMPLE = 20;

export interface Candidate {
  transport: string;
  /** The price of one message through it to the number; undefined: not in the price list. */
  price: Price | undefined;
  conversion: Conversion | undefined;
}

export type CheapestDecision =
  | { decided: 'cheapest'; order: string[]; chosen: string; reason: string }
  | { decided: 'ordered'; order: string[]; reason: string };

/**
 * The cheapest strategy: among the rule's transports whose conversion to the country is measured
 * (at least MIN_CONVERSION_SAMPLE sends) and at least `minConversion`, the one with the lowest
 * price goes first, the others keep their order behind it (failover still applies). When no
 * transport qualifies on data and price the table's order stands.
 */
export function decideCheapest(candidates: readonly Candidate[], minConversion: number): CheapestDecision {
  const order = candidates.map((c) => c.transport);
  const measured = candidates.filter((c) => c.conversion !== undefined && c.conversion.sent >= MIN_CONVERSION_SAMPLE);
  if (measured.length === 0) return { decided: 'ordered', order, reason: `no transport has ${MIN_CONVERSION_SAMPLE} sends to this country in the window yet: the listed order` };
  const converting = measured.filter((c) => conversionRate(c.conversion as Conversion) >= minConversion && c.price !== undefined);
  if (converting.length === 0) return { decided: 'ordered', order, reason: `no priced transport converts at ${minConversion} or more: the listed order` };
  // Prices in different currencies are not compared: converting them would need a rate of the day.
  if (new Set(converting.map((c) => c.price?.currency)).size > 1) return { decided: 'ordered', order, reason: 'the converting transports are priced in different currencies: the listed order' };
  const chosen = converting.reduce((best, c) => (compareDecimal((c.price as Price).amount, (best.price as Price).amount) < 0 ? c : best));
  return { decided: 'cheapest', order: [chosen.transport, ...order.filter((t) => t !== chosen.transport)], chosen: chosen.transport, reason: `${chosen.transport} is the cheapest transport converting at ${minConversion} or more` };
}

export function conversionRate(c: Conversion): number {
  return c.sent === 0 ? 0 : c.verified / c.sent;
}

/** Compares two non-negative decimal strings ("0.0450" < "0.05") without floating point. */
export function compareDecimal(a: string, b: string): number {
  const [ai = '0', af = ''] = a.split('.');
  const [bi = '0', bf = ''] = b.split('.');
  const intA = ai.replace(/^0+/, '');
  const intB = bi.replace(/^0+/, '');
  if (intA.length !== intB.length) return intA.length - intB.length;
  if (intA !== intB) return intA < intB ? -1 : 1;
  const width = Math.max(af.length, bf.length);
  const fa = af.padEnd(width, '0');
  const fb = bf.padEnd(width, '0');
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}
