// Delivers what the API queued: claims due messages (a PIN's first, on its row, or a later one, an
// outbox row) through the leased loop, renders each message in memory, hands it to the channel's
// transport and records the outcome on the message and the PIN. Delivery is at least once (see
// leased-worker.ts): a message may rarely arrive twice but is never lost.
import type { Logger } from 'pino';
import { maskDestination, phoneCountry } from '../domain/destinations.js';
import { priceMessage, type MessagePrice } from '../domain/price-list.js';
import type { PriceList } from '../domain/prices.js';
import { smsTextInfo } from '../domain/template-rendering.js';
import type { PinKeyring } from '../domain/pin-secrets.js';
import { noopMetrics, type Metrics } from '../observability/metrics.js';
import type { AuditAppend, AuditEntryInput } from '../store/audit-store.js';
import { DatabaseUnavailableError, type Channel, type OutboxRecord, type Store } from '../store/store.js';
import { decide, DEFAULT_LEASE_MS, errorMessage, LeasedWorker, logDecision, positiveInteger, type AttemptOutcome, type LoopSettings, type RetryPolicy, type Settlement } from './leased-worker.js';
import { composeMessage, type ComposeResult } from './message-composer.js';
import { routeLeaves } from './routing/routed-transport.js';
import type { DeliveryResult, Pacing, RoutedDelivery, Transport } from './transport.js';
import { sendPaced } from './transport-pacer.js';

/** An outcome's audit entry, with the full destination (masked before anything is written). */
export type DeliveryAuditEntry = AuditEntryInput & { destination?: string | null };

/** The audit log as the worker uses it (service/audit-log.ts deliveryAudit, injected so that delivery does not import the services). */
export interface DeliveryAudit {
  /** The entry masked and sealable, for the store to append in the transaction of the outcome it records. */
  sealable(entry: DeliveryAuditEntry): AuditAppend;
  /** Appends an entry the store did not append itself; never throws. */
  append(entry: DeliveryAuditEntry): Promise<void>;
}

export interface OutboxWorkerDeps extends LoopSettings {
  store: Store;
  keyring: PinKeyring;
  /** Records each delivery outcome in the account's audit log. */
  audit: DeliveryAudit;
  /** A channel without a transport is switched off: its messages fail at once. */
  transports: Partial<Record<Channel, Transport>>;
  /** Attempts per message (the first one included) before it is recorded as failed. */
  maxAttempts: number;
  /** The n-th retry waits between half and all of min(cap, base * 2^(n-1)). Defaults 1 s and 5 min. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  metrics?: Metrics;
  /** Told once a message failed for good (not when cancelled): the PIN's workflow moves to its next step. */
  onFailed?: (item: OutboxRecord, error: string) => Promise<void>;
  /** The operator's price list (TWOFA_PRICES_FILE): each message taken is priced with it. Absent: nothing is priced or recorded. */
  prices?: PriceList;
}


/** Most messages one claim takes (the store's one transaction for them): a burst is claimed in a few round trips. */
const CLAIM_BATCH = 64;
/** How often the nodes are counted for max_tps_global. */
const GLOBAL_RATE_INTERVAL_MS = 2000;
/** Lanes of a transport built without a DSN (tests, embedders), which has no pacer and hence no window. */
const UNPACED_LANES = 8;

/** The deliveries the worker runs at once: the sum of the windows of every transport its channels reach. */
export function deliveryLanes(transports: Partial<Record<Channel, Transport>>): number {
  let lanes = 0;
  for (const leaf of transportLeaves(transports)) lanes += leaf.pacer?.maxInFlight ?? UNPACED_LANES;
  return Math.max(1, lanes);
}

/** Every transport that delivers for some channel, once each (routes flattened). */
function transportLeaves(transports: Partial<Record<Channel, Transport>>): Transport[] {
  return [...new Set(Object.values(transports).flatMap((t) => (t === undefined ? [] : routeLeaves(t))))];
}

const LOG_MESSAGES: Record<Settlement, string> = {
  delivered: 'message sent', retried: 'delivery failed; will retry', cancelled: 'delivery cancelled', failed: 'delivery failed',
};

/** What one attempt at a message came to, with what settle() reports about it. */
type Attempt = AttemptOutcome & {
  /** The channel's transport (a route's name, for failover and roundrobin); absent when none was reached. */
  transport?: string;
  /** Who took the message: the transport, or the member of a route that did, and its id for it (receipts match by these). */
  accepted?: { transport: string; providerMessageId?: string | undefined };
  /** The full destination, for the audit entry (masked there) and, masked, the log. */
  destination?: string;
  /** The PIN's expiry: no retry is scheduled at or past it. */
  notAfter?: number;
  /** What the message cost, when a transport took it. */
  price?: MessagePrice;
  /** The named transport a routes table delivered through, for the conversion counters. */
  routed?: RoutedDelivery;
};

export class OutboxWorker {
  private readonly store: Store;
  private readonly keyring: PinKeyring;
  private readonly audit: DeliveryAudit;
  private readonly transports: Partial<Record<Channel, Transport>>;
  private readonly clock: () => number;
  private readonly logger: Logger;
  private readonly policy: RetryPolicy;
  private readonly metrics: Metrics;
  private readonly onFailed: OutboxWorkerDeps['onFailed'];
  private readonly prices: PriceList | undefined;
  private readonly loop: LeasedWorker<OutboxRecord>;
  /** How long an outcome's write is retried while the database is unavailable: the lease, renewed meanwhile. */
  private readonly recordPatienceMs: number;
  private readonly pacers: Pacing[];
  private sharingTimer: NodeJS.Timeout | undefined;

  constructor(deps: OutboxWorkerDeps) {
    this.store = deps.store;
    this.keyring = deps.keyring;
    this.audit = deps.audit;
    this.transports = deps.transports;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.policy = {
      maxAttempts: positiveInteger('maxAttempts', deps.maxAttempts),
      backoffBaseMs: positiveInteger('backoffBaseMs', deps.backoffBaseMs ?? 1000),
      backoffCapMs: positiveInteger('backoffCapMs', deps.backoffCapMs ?? 5 * 60_000),
    };
    this.metrics = deps.metrics ?? noopMetrics;
    this.onFailed = deps.onFailed;
    this.prices = deps.prices;
    this.recordPatienceMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
    this.pacers = transportLeaves(deps.transports).flatMap((leaf) => (leaf.pacer === undefined ? [] : [leaf.pacer]));
    const store = deps.store;
    this.loop = new LeasedWorker<OutboxRecord>({
      ...deps,
      // As many deliveries at once as the transports' windows hold: each transport's pacer, not the
      // worker, bounds what goes to its provider, and its window stays full while messages are due.
      concurrency: deps.concurrency ?? deliveryLanes(deps.transports),
      batchSize: deps.batchSize ?? CLAIM_BATCH,
      what: 'outbox messages',
      queue: {
        claim: (now, leaseUntil, max, holder) => store.claimOutbox(now, leaseUntil, max, holder),
        renew: (items, holder, leaseUntil) => store.renewOutbox(items.map(({ id, pinId, attempts }) => ({ id, pinId, attempts })), holder, leaseUntil),
        release: (items, now) => store.releaseOutbox(items.map(({ id, pinId }) => ({ id, pinId })), now),
        releaseHeld: (holder, now, keep) => store.releaseHeldOutbox(holder, now, keep.map(({ id, pinId }) => ({ id, pinId }))),
      },
      deliver: (item) => this.deliver(item),
    });
  }

  start(): void {
    this.loop.start();
    for (const pacer of this.pacers) if (pacer.maxTps !== undefined) this.metrics.transportRate(pacer.transport, pacer.maxTps);
    if (this.pacers.some((p) => p.globalTps !== undefined) && this.sharingTimer === undefined) {
      void this.shareGlobalRates();
      this.sharingTimer = setInterval(() => void this.shareGlobalRates(), GLOBAL_RATE_INTERVAL_MS).unref();
    }
  }

  /**
   * Counts the live nodes and gives each transport with a max_tps_global this node's share of it. A
   * node that joins takes its share at once; the others lower theirs within GLOBAL_RATE_INTERVAL_MS.
   */
  async shareGlobalRates(): Promise<void> {
    let nodes: number;
    try {
      nodes = await this.store.countLiveNodes();
    } catch (err) {
      this.logger.warn({ err: errorMessage(err) }, 'could not count the live nodes; global rates keep their current shares');
      return;
    }
    for (const pacer of this.pacers) {
      if (pacer.globalTps === undefined) continue;
      pacer.shareGlobalRate(nodes);
      if (pacer.maxTps !== undefined) this.metrics.transportRate(pacer.transport, pacer.maxTps);
    }
  }

  /** Looks for due messages now rather than at the next poll; called right after a send commits. */
  wake(): void {
    this.loop.wake();
  }

  /** See LeasedWorker.stop: waits up to `timeoutMs` for deliveries in flight. */
  stop(timeoutMs?: number): Promise<void> {
    clearInterval(this.sharingTimer);
    this.sharingTimer = undefined;
    return this.loop.stop(timeoutMs);
  }

  /** Delivers until nothing is due and nothing is in flight. For tests and one-shot commands. */
  drain(): Promise<void> {
    return this.loop.drain();
  }

  /** Delivers one message and settles its outcome. Never throws. */
  private async deliver(item: OutboxRecord): Promise<void> {
    await this.settle(item, await this.attempt(item));
  }

  private async attempt(item: OutboxRecord): Promise<Attempt> {
    let composed: ComposeResult;
    try {
      composed = await composeMessage(this.store, this.keyring, item, this.clock());
    } catch (err) {
      // Most likely the database: worth another try later, like a provider outage.
      return { ok: false, retryable: true, error: `could not prepare the message: ${errorMessage(err)}` };
    }
    if (!composed.ok) return { ok: false, error: composed.error, final: composed.reason === 'ended' ? 'cancelled' : 'failed' };

    const { message, expiresAt } = composed;
    const transport = this.transports[item.channel];
    if (transport === undefined) return { ok: false, error: `no transport configured for ${item.channel}`, final: 'failed', destination: message.to };

    let result: DeliveryResult;
    try {
      result = await sendPaced(transport, message, (durationMs) => this.metrics.transportLatency(item.channel, transport.name, durationMs));
    } catch (err) {
      // A transport bug or an unexpected network failure: assume it may pass.
      result = { ok: false, retryable: true, error: errorMessage(err) };
    }
    const reached = { destination: message.to, notAfter: expiresAt };
    if (result.ok) {
      const acceptedBy = result.transport ?? transport.name;
      this.metrics.deliveryLatency(item.channel, acceptedBy, this.clock() - item.createdAt);
      // Priced by the transport that took it (a route's member; a named transport by its name), per SMS part, unless its provider said what it cost.
      const price = this.prices && priceMessage(this.prices, {
        channel: item.channel, transport: result.named ?? acceptedBy, to: message.to, segments: item.channel === 'sms' ? smsTextInfo(message.text ?? '').segments : 1,
      }, phoneCountry, result.price);
      return {
        ok: true, ...reached, transport: transport.name, accepted: { transport: acceptedBy, providerMessageId: result.providerMessageId },
        ...(price && { price }), ...(result.routed !== undefined && { routed: result.routed }),
      };
    }
    return { ok: false, retryable: result.retryable, error: result.error, ...reached, transport: transport.name };
  }

  /** The one tail of every attempt: the store write, the counter, the audit entry, the metric and the log line. */
  private async settle(item: OutboxRecord, attempt: Attempt): Promise<void> {
    const now = this.clock();
    const decision = decide(this.policy, item.attempts, attempt, now, attempt.notAfter);
    const { state } = decision;
    const transport = attempt.transport;
    const fields = {
      pinId: item.pinId, channel: item.channel, to: attempt.destination === undefined ? undefined : maskDestination(attempt.destination),
      transport, attempt: item.attempts,
    };
    // Every outcome but a retry is audited: by the store in the outcome's own transaction where it
    // can (`audited`), else appended here once the outcome is recorded (or could not be).
    const entry: DeliveryAuditEntry | undefined = decision.state === 'retried' ? undefined : {
      accountId: item.accountId, at: now, event: `delivery.${decision.state === 'delivered' ? 'sent' : decision.state}`, pinId: item.pinId,
      destination: attempt.destination ?? null, actor: 'delivery', reason: decision.state === 'delivered' ? attempt.accepted?.transport ?? 'none' : decision.error,
    };
    const audit = entry && this.audit.sealable(entry);
    let recorded: { audited: boolean } | undefined;
    if (decision.state === 'delivered') {
      const accepted = attempt.accepted && { ...attempt.accepted, ...(attempt.price && { price: attempt.price }) };
      recorded = await this.record(item, () => this.store.completeOutbox(item.id, item.pinId, now, accepted, audit));
      if (recorded !== undefined && attempt.price && accepted) this.metrics.spend(attempt.price.transport, attempt.price);
      if (attempt.routed !== undefined) await this.countRouted(item, attempt.routed, now);
    } else if (decision.state === 'retried') {
      await this.record(item, () => this.store.retryOutbox(item.id, item.pinId, now + decision.retryInMs, decision.error, now));
    } else {
      recorded = await this.record(item, () => this.store.failOutbox(item.id, item.pinId, decision.error, now, decision.state, audit));
      if (decision.state === 'failed') await this.onFailed?.(item, decision.error);
    }
    this.metrics.delivery(item.channel, transport ?? 'none', state);
    if (entry && recorded?.audited !== true) await this.audit.append(entry);
    logDecision(this.logger, fields, decision, LOG_MESSAGES);
  }

  /** One sent for the named transport and country (the cheapest strategy's counters); a lost count errs towards a lower conversion. */
  private async countRouted(item: OutboxRecord, routed: RoutedDelivery, now: number): Promise<void> {
    try {
      await this.store.routes.countRoutedDelivery(item.pinId, routed.transport, routed.country, now);
    } catch (err) {
      this.logger.warn({ pinId: item.pinId, transport: routed.transport, err: errorMessage(err) }, 'could not count a routed delivery for the conversion figures');
    }
  }

  /**
   * Runs a store write that records an outcome. While the database is unavailable (nothing written)
   * the write is tried again for up to a lease: the message stays in flight meanwhile, its lease
   * renewed once the database answers, so a message delivered during an outage is recorded when the
   * database is back rather than sent again. If it still fails, the message keeps its lease (no longer
   * renewed once settle() returns) and is delivered again after it runs out, or when this node gives
   * back what it holds after a failed claim: a possible duplicate, never a loss. Answers what the write
   * answered, undefined when it failed.
   */
  private async record<T>(item: OutboxRecord, write: () => Promise<T>): Promise<T | undefined> {
    const startedAt = performance.now();
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await write();
      } catch (err) {
        const waitMs = Math.min(2000, 250 * 2 ** attempt);
        if (err instanceof DatabaseUnavailableError && performance.now() - startedAt + waitMs < this.recordPatienceMs) {
          await new Promise((resolve) => setTimeout(resolve, waitMs).unref());
          continue;
        }
        this.logger.error(
          { pinId: item.pinId, channel: item.channel, err: errorMessage(err) },
          'could not record the delivery outcome; the message is retried when its lease expires',
        );
        return undefined;
      }
    }
  }
}
