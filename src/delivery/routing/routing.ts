// A node's routing as the rest of it uses it: the channels' transports made routed, the table reloaded
// (SIGHUP, POST /api/v1/routes/reload), a number explained, and the transports a send would try (the
// budgets' estimate). The conversions the cheapest strategy reads are cached here for a few seconds:
// every node reads the shared counters, none on each message.
import type { Logger } from 'pino';
import { matchRoute, ROUTED_CHANNELS, type Conversion, type RouteRule, type RoutedChannel, type SenderCandidates } from '../../domain/routes.js';
import { phoneCountry } from '../../domain/destinations.js';
import type { PriceList } from '../../domain/prices.js';
import type { RouteStore } from '../../store/route-store.js';
import type { Channel } from '../../store/store.js';
import type { Transport } from '../transport.js';
import { RouteTable, RoutingTransport, type ConversionReader, type RoutePlan } from './route-table.js';

/** The window of sends and verifications the cheapest strategy measures conversion over. */
export const CONVERSION_WINDOW_MS = 24 * 3_600_000;
/** How long a node reuses the conversion figures it read. */
export const CONVERSION_CACHE_MS = 10_000;

export type RoutesReload = { ok: true; rules: readonly RouteRule[] } | { ok: false; error: string };

export interface RoutingOptions {
  logger: Logger;
  /** The node's price list (TWOFA_PRICES_FILE), read at each plan: a reload is seen by the next message. */
  prices: PriceList;
  store: Pick<RouteStore, 'conversionsTo' | 'applicationSender'>;
  clock: () => number;
  /** Reads the routes table as configured now (config.ts loadRoutes); throws a ConfigError naming the problems. */
  loadRules: (transportNames: readonly string[]) => RouteRule[];
}

export class Routing {
  readonly table: RouteTable;
  private readonly conversions: CachedConversions;

  constructor(named: ReadonlyMap<string, Transport>, rules: readonly RouteRule[], channelTransports: Partial<Record<Channel, Transport>>, private readonly options: RoutingOptions) {
    this.conversions = new CachedConversions(options.store, options.clock);
    this.table = new RouteTable(named, rules, { logger: options.logger, prices: options.prices, conversions: this.conversions, channelTransports });
  }

  /** Each routed channel's transport (the routes table before its own DSN); email keeps its own. */
  channelTransports(own: Partial<Record<Channel, Transport>>): Partial<Record<Channel, Transport>> {
    const transports = { ...own };
    for (const channel of ROUTED_CHANNELS) transports[channel] = new RoutingTransport(channel, this.table);
    return transports;
  }

  get transportNames(): string[] {
    return [...this.table.named.keys()];
  }

  /** Whether a rule of the table in force routes messages of `channel` to `to` (their deliveries are counted). */
  routes(channel: Channel, to: string): boolean {
    return matchRoute(this.table.rules, channel, to.replace(/^\+/, ''), phoneCountry(to.replace(/^\+/, ''))) !== undefined;
  }

  /** Reads the configured table again and puts it in place, or keeps the current one and says why not. */
  reload(): RoutesReload {
    let rules: RouteRule[];
    try {
      rules = this.options.loadRules(this.transportNames);
    } catch (err) {
      this.options.logger.error({ err: (err as Error).message }, 'routes reload refused: the current routes stay in place');
      return { ok: false, error: (err as Error).message };
    }
    this.table.replace(rules);
    this.options.logger.info({ rules: rules.length }, 'routes reloaded');
    return { ok: true, rules };
  }

  /** The route a message to `to` takes now, with the application's sender for its country when one is set. */
  async explain(channel: Channel, to: string, applicationId?: string, senders: SenderCandidates = {}): Promise<RoutePlan> {
    const country = phoneCountry(to);
    const application = applicationId === undefined || country === undefined ? undefined : await this.options.store.applicationSender(applicationId, country);
    return this.table.plan(channel, to, { ...senders, ...(application !== undefined && { application }) });
  }

  /**
   * The named transports a message of `applicationId` on `channel` to `to` would be tried through, in
   * order (the cheapest strategy's order included); for a number no rule matches, those of the
   * channel's own DSN. What a send-time cost estimate prices.
   */
  async plannedTransports(channel: Channel, to: string, applicationId: string): Promise<string[]> {
    return (await this.explain(channel, to, applicationId)).transports.map((t) => t.name);
  }
}

export function isRoutedChannel(channel: Channel): channel is RoutedChannel {
  return (ROUTED_CHANNELS as readonly Channel[]).includes(channel);
}

/** The shared counters, read at most once per CONVERSION_CACHE_MS per country by this node. */
class CachedConversions implements ConversionReader {
  private readonly cache = new Map<string, { at: number; figures: Promise<ReadonlyMap<string, Conversion>> }>();

  constructor(private readonly store: Pick<RouteStore, 'conversionsTo'>, private readonly clock: () => number) {}

  conversionsTo(country: string): Promise<ReadonlyMap<string, Conversion>> {
    const now = this.clock();
    const cached = this.cache.get(country);
    if (cached !== undefined && now - cached.at < CONVERSION_CACHE_MS) return cached.figures;
    // Hours that started within the window (the current one included).
    const figures = this.store.conversionsTo(country, now - CONVERSION_WINDOW_MS).catch(() => new Map<string, Conversion>());
    this.cache.set(country, { at: now, figures });
    return figures;
  }
}
