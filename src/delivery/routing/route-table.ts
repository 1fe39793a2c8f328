// The routes table at work (docs/routing.md): for each message of a routed channel, the rule that
// matches its number picks the named transports (tried in order, failing over per message, each
// behind its circuit breaker), the sender and the regulatory fields; a number no rule matches goes
// through the channel's own DSN as before. The table is replaced whole on reload (SIGHUP, `twofa
// routes reload`): a message uses the table of the moment it is sent.
import type { Logger } from 'pino';
import { phoneCountry } from '../../domain/destinations.js';
import type { PriceList, PriceMatch } from '../../domain/prices.js';
import {
  chooseSender, conversionRate, decideCheapest, matchRoute,
  type Conversion, type RegulatoryFields, type RouteRule, type RoutedChannel, type RuleMatch, type SenderCandidates, type SenderChoice,
} from '../../domain/routes.js';
import type { Channel } from '../../store/store.js';
import type { DeliveryResult, OutgoingMessage, Transport } from '../transport.js';
import { sendPaced } from '../transport-pacer.js';
import { RoutedTransport, routeLeaves, type CompositeTransport } from './routed-transport.js';

/** The measured conversions the cheapest strategy reads (route-conversions.ts caches them for a few seconds). */
export interface ConversionReader {
  conversionsTo(country: string): Promise<ReadonlyMap<string, Conversion>>;
}

/** The application's own sender for a country (its brand, set through /api/v1). */
export type ApplicationSenders = (applicationId: string, country: string) => Promise<SenderChoice['sender']>;

export interface PlannedTransport {
  name: string;
  /** The price list's line for a message through it to the number; null: not priced. */
  price: PriceMatch | null;
  /** Measured over the conversion window (cheapest rules only); null: not read. */
  conversion: (Conversion & { rate: number }) | null;
}

/** What a message to one number would take: the answer of explain, and what send() follows. */
export interface RoutePlan {
  channel: Channel;
  to: string;
  country: string | null;
  /** The rule that matched and why; null: none did, the channel's DSN delivers. */
  rule: { index: number; name: string | null; match: RuleMatch; strategy: RouteRule['strategy']; minConversion: number | null } | null;
  /** Rules that also matched and lost (a shorter prefix, the country, a catch-all, or a later equal). */
  outranked: { index: number; name: string | null; match: RuleMatch }[];
  /** In the order they are tried. */
  transports: PlannedTransport[];
  /** How the cheapest strategy ordered them; null for an ordered rule. */
  decision: { decided: 'cheapest' | 'ordered'; reason: string } | null;
  sender: SenderChoice;
  regulatory: RegulatoryFields;
}

export interface RouteTableDeps {
  logger: Logger;
  prices: PriceList;
  conversions?: ConversionReader;
  /** The channels' own transports (TWOFA_*_DSN), for numbers no rule matches. */
  channelTransports: Partial<Record<Channel, Transport>>;
}

export class RouteTable {
  private current: readonly RouteRule[];
  private readonly failover: RoutedTransport | undefined;
  private readonly names = new Map<Transport, string>();

  constructor(readonly named: ReadonlyMap<string, Transport>, rules: readonly RouteRule[], private readonly deps: RouteTableDeps) {
    this.current = rules;
    for (const [name, transport] of named) this.names.set(transport, name);
    // One breaker per named transport, shared by every rule that names it.
    this.failover = named.size === 0 ? undefined : new RoutedTransport('failover', [...named.values()], { logger: deps.logger });
  }

  get rules(): readonly RouteRule[] {
    return this.current;
  }

  /** Puts a new table in place (already checked whole against the named transports). */
  replace(rules: readonly RouteRule[]): void {
    this.current = rules;
  }

  /** The channel's own transport (its TWOFA_*_DSN), for numbers no rule matches. */
  channelTransport(channel: Channel): Transport | undefined {
    return this.deps.channelTransports[channel];
  }

  hasRulesFor(channel: Channel): boolean {
    return this.current.some((r) => r.channel === channel);
  }

  /** The operator's name of a transport (TWOFA_TRANSPORT_<NAME>), else its own (`smpp`, `log`). */
  nameOf(transport: Transport): string {
    return this.names.get(transport) ?? transport.name;
  }

  /** The route a message to `to` would take now, with the prices and the figures that decided it. */
  async plan(channel: Channel, to: string, senders: SenderCandidates = {}): Promise<RoutePlan> {
    const digits = to.replace(/^\+/, '');
    const country = phoneCountry(digits) ?? null;
    const matched = matchRoute(this.current, channel, digits, country ?? undefined);
    const priced = (name: string): PriceMatch | null => this.deps.prices.priceOf(name, digits) ?? null;
    if (matched === undefined) {
      const own = this.channelTransport(channel);
      return {
        channel, to: digits, country, rule: null, outranked: [], decision: null, regulatory: {},
        transports: own === undefined ? [] : routeLeaves(own).map((t) => ({ name: this.nameOf(t), price: priced(this.nameOf(t)), conversion: null })),
        sender: chooseSender(senders, undefined, country ?? undefined),
      };
    }
    const { rule } = matched;
    let transports: PlannedTransport[] = rule.transports.map((name) => ({ name, price: priced(name), conversion: null }));
    let decision: RoutePlan['decision'] = null;
    if (rule.strategy === 'cheapest' && rule.minConversion !== undefined) {
      const measured = country === null || this.deps.conversions === undefined ? new Map<string, Conversion>() : await this.deps.conversions.conversionsTo(country);
      transports = transports.map((t) => {
        const c = measured.get(t.name);
        return { ...t, conversion: c === undefined ? { sent: 0, verified: 0, rate: 0 } : { ...c, rate: conversionRate(c) } };
      });
      const decided = decideCheapest(transports.map((t) => ({ transport: t.name, price: t.price ?? undefined, conversion: t.conversion ?? undefined })), rule.minConversion);
      decision = { decided: decided.decided, reason: decided.reason };
      transports = decided.order.map((name) => transports.find((t) => t.name === name) as PlannedTransport);
    }
    const ruleRef = (r: RouteRule) => ({ index: r.index, name: r.name ?? null });
    return {
      channel, to: digits, country,
      rule: { ...ruleRef(rule), match: matched.match, strategy: rule.strategy, minConversion: rule.minConversion ?? null },
      outranked: matched.outranked.map((o) => ({ ...ruleRef(o.rule), match: o.match })),
      transports, decision, regulatory: rule.regulatory,
      sender: chooseSender(senders, rule, country ?? undefined),
    };
  }

  /** Sends one message as the table says now (see RoutingTransport). */
  async send(channel: Channel, message: OutgoingMessage): Promise<DeliveryResult> {
    const plan = await this.plan(channel, message.to, message.senders ?? (message.from === undefined ? {} : { template: message.from }));
    if (plan.rule === null) {
      const own = this.channelTransport(channel);
      if (own === undefined) return { ok: false, retryable: false, error: `no route for this ${channel} number (country ${plan.country ?? 'unknown'}) and the channel has no DSN of its own` };
      const result = await sendPaced(own, message);
      if (!result.ok) return result;
      // The transport that took it by its own name (not this table's `routes`): the name its receipts and its price line carry.
      const took = result.transport ?? own.name;
      const named = this.namedLeafOf(own, took);
      return { ...result, transport: took, ...(named !== undefined && { named }) };
    }
    const routed: OutgoingMessage = { ...message, regulatory: plan.regulatory };
    if (plan.sender.sender === undefined) delete routed.from;
    else routed.from = plan.sender.sender.id;
    const members = plan.transports.map((t) => this.named.get(t.name)).filter((t): t is Transport => t !== undefined);
    const { result, by } = await (this.failover as RoutedTransport).sendInOrder(routed, members);
    if (!result.ok || by === undefined) return result;
    const named = this.nameOf(by);
    return { ...result, named, ...(plan.country !== null && { routed: { transport: named, country: plan.country } }) };
  }

  /**
   * The operator's name of the member of a channel's own DSN that took a message, when that member is
   * a named transport (`failover(smsc infobip)`) and its kind names it alone among the DSN's members.
   */
  private namedLeafOf(own: Transport, acceptedBy: string): string | undefined {
    const leaves = routeLeaves(own).filter((t) => t.name === acceptedBy);
    return leaves.length === 1 && this.names.has(leaves[0]!) ? this.nameOf(leaves[0]!) : undefined;
  }
}

/** A routed channel's transport: its messages go as the routes table says (docs/routing.md). */
export class RoutingTransport implements CompositeTransport {
  readonly name = 'routes';

  constructor(readonly channel: RoutedChannel, private readonly table: RouteTable) {}

  /** Every transport it may deliver through: the named ones and the channel's own. */
  get transports(): Transport[] {
    const own = this.table.channelTransport(this.channel);
    return [...new Set([...this.table.named.values(), ...(own === undefined ? [] : [own])])];
  }

  /** Whether the channel delivers at all: its own DSN, or a rule of the table. */
  get open(): boolean {
    return this.table.channelTransport(this.channel) !== undefined || this.table.hasRulesFor(this.channel);
  }

  send(message: OutgoingMessage): Promise<DeliveryResult> {
    return this.table.send(this.channel, message);
  }
}
