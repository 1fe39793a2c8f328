// The loop under both delivery workers (PIN messages and webhook events): claims due items under a
// lease recorded with this node's id, runs each in a lane of its own, keeps the leases of the items
// in flight alive, and settles nothing itself (the worker that owns the items does, see settle()).
//
// Leases are short (TWOFA_DELIVERY_LEASE, 10 s by default) and renewed every third of the lease while
// an item is in flight, so a delivery may take as long as it takes (a voice call rings and plays for
// most of a minute) while a node that dies leaves its items to another node within one lease. A node
// that starts again under the same id takes back at once what it held when it died. Delivery stays at
// least once: a holder that stalls past its lease may see its item sent again by another node.
//
// A claim that fails may still have committed leases whose answer never arrived (the database died
// or the connection broke between its commit and its answer). Nobody else may take those items until
// their leases run out, so the node takes them back itself: after a failed claim, the next claim
// (once the database answers) first gives back what this node holds but is not delivering.
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import { IncompleteClaimError } from '../store/store.js';
import type { DeliveryOutcomeLabel } from '../observability/metrics.js';

/** How an attempt ended: the metrics' outcome labels and the log lines use these names. */
export type Settlement = DeliveryOutcomeLabel;


/** The store side of a leased queue. */
export interface LeaseQueue<Item> {
  /** Leases up to `max` due items to `holder` until `leaseUntil`. */
  claim(now: number, leaseUntil: number, max: number, holder: string): Promise<Item[]>;
  /** Extends the leases `holder` still has on these items (as claimed); answers how many it extended. */
  renew(items: Item[], holder: string, leaseUntil: number): Promise<number>;
  /** Gives items back untouched, claimable at once. */
  release(items: Item[], now: number): Promise<void>;
  /**
   * Gives back everything leased to `holder` but `keep` (the items in flight): what this node held
   * when it last died, or what a claim whose answer was lost leased to it.
   */
  releaseHeld(holder: string, now: number, keep: Item[]): Promise<number>;
}

/** What both workers are configured with for their loop. */
export interface LoopSettings {
  /** This node's id (TWOFA_NODE_ID): claims record it, so that the node takes them back when it restarts. */
  nodeId: string;
  /** Unix milliseconds; injectable so tests can move time past a backoff. */
  clock: () => number;
  logger: Logger;
  /** How often to look for due items when nobody calls wake() (retries become due this way). Default 1 s. */
  pollIntervalMs?: number;
  /** How long a claim holds without renewal (renewed while its delivery runs). Default 10 s. */
  leaseMs?: number;
  /** Most items claimed at once (never more than there are free lanes). Default 32. */
  batchSize?: number;
  /** Deliveries in flight at once. Default 8; the outbox worker runs as many as its transports' windows hold (deliveryLanes). */
  concurrency?: number;
}

export interface LeasedWorkerOptions<Item> extends LoopSettings {
  /** The items, plural, in log lines: "could not claim <what>". */
  what: string;
  queue: LeaseQueue<Item>;
  /** Delivers one item and records its outcome. Must not throw: one bad item must not stop the loop. */
  deliver: (item: Item) => Promise<void>;
}

export const DEFAULT_LEASE_MS = 10_000;
const DEFAULT_STOP_TIMEOUT_MS = 10_000;

export class LeasedWorker<Item> {
  private readonly what: string;
  private readonly queue: LeaseQueue<Item>;
  private readonly deliverItem: (item: Item) => Promise<void>;
  private readonly holder: string;
  private readonly clock: () => number;
  private readonly logger: Logger;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly concurrency: number;

  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private timerDueAt = 0;
  /** Items being delivered, whose leases the heartbeat renews. */
  private readonly inFlight = new Set<Item>();
  private heartbeat: NodeJS.Timeout | undefined;
  private renewing = false;
  /**
   * Set once the leases this node holds but is not delivering (those of the process before this one,
   * or of a claim whose answer was lost) are given back; no claim comes before. Cleared by a failed claim.
   */
  private recovered = false;
  /** One claim at a time, so two claims cannot both count the same free lanes. */
  private claiming = false;
  /** Set by wake() and by a claim that filled every free lane; cleared by a claim that found less. */
  private moreMayBeDue = true;
  private wakeCount = 0;
  private stopCount = 0;
  /** Bumped whenever a claim or a delivery ends; waiters compare it to see that something changed. */
  private version = 0;
  private waiters: (() => void)[] = [];

  constructor(options: LeasedWorkerOptions<Item>) {
    this.what = options.what;
    this.queue = options.queue;
    this.deliverItem = options.deliver;
    this.holder = options.nodeId;
    this.clock = options.clock;
    this.logger = options.logger;
    this.pollIntervalMs = positiveInteger('pollIntervalMs', options.pollIntervalMs ?? 1000);
    this.leaseMs = positiveInteger('leaseMs', options.leaseMs ?? DEFAULT_LEASE_MS);
    this.batchSize = positiveInteger('batchSize', options.batchSize ?? 32);
    this.concurrency = positiveInteger('concurrency', options.concurrency ?? 8);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.moreMayBeDue = true;
    this.schedule(0);
  }

  /** Looks for due items now rather than at the next poll. */
  wake(): void {
    // Counted so that a claim already on its way (which may have run before the new row committed)
    // does not conclude that nothing is due.
    this.wakeCount += 1;
    this.moreMayBeDue = true;
    if (this.running) this.kick();
  }

  /**
   * Stops claiming and waits up to `timeoutMs` for deliveries in flight, renewing their leases
   * meanwhile. Items claimed after stop() was called are given back at once; a delivery still running
   * after the timeout is no longer renewed, and its item goes to another node when the lease runs out.
   */
  async stop(timeoutMs = DEFAULT_STOP_TIMEOUT_MS): Promise<void> {
    this.running = false;
    this.stopCount += 1;
    clearTimeout(this.timer);
    this.timer = undefined;
    const finished = await settledWithin(this.until(() => !this.claiming && this.inFlight.size === 0), timeoutMs);
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    if (!finished) {
      this.logger.warn({ timeoutMs, inFlight: this.inFlight.size }, `worker of ${this.what} stopped with deliveries still in flight; they are retried when their lease expires`);
    }
  }

  /**
   * Delivers until nothing is due and nothing is in flight (retries scheduled for later are not
   * waited for). For tests and one-shot commands; works whether or not start() was called.
   */
  async drain(): Promise<void> {
    const stopCount = this.stopCount;
    while (stopCount === this.stopCount) {
      const { claimed, version } = await this.claimAndStart();
      if (claimed === 0 && this.inFlight.size === 0 && !this.claiming) return;
      // Lanes full, nothing due while deliveries run (one may schedule a retry due at once), or another
      // claim under way: wait until a delivery or claim ends rather than query again at once.
      if (claimed === null || claimed === 0) await this.changedSince(version);
    }
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    const dueAt = Date.now() + delayMs;
    if (this.timer !== undefined && this.timerDueAt <= dueAt) return;
    clearTimeout(this.timer);
    this.timerDueAt = dueAt;
    this.timer = setTimeout(() => void this.tick(), delayMs);
    // The worker alone must not keep the process (or a test run) alive.
    this.timer.unref();
  }

  /** Claims now if there is reason to and room for it, and otherwise makes sure a poll is pending. */
  private kick(): void {
    if (this.moreMayBeDue && !this.claiming && this.freeLanes() > 0) this.schedule(0);
    else this.schedule(this.pollIntervalMs);
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    if (!this.running) return;
    await this.claimAndStart();
    if (this.running) this.kick();
  }

  private freeLanes(): number {
    return Math.min(this.batchSize, this.concurrency - this.inFlight.size);
  }

  /**
   * Claims at most as many items as there are free lanes and starts each at once. Claiming no more
   * than can run means no item sits leased while it waits for a lane, and a slow delivery never holds
   * up the others: a lane that frees up claims again. `claimed` is null when no claim was made (no
   * free lane, or another claim under way). Never throws.
   */
  private async claimAndStart(): Promise<{ claimed: number | null; version: number }> {
    const wanted = this.freeLanes();
    if (wanted <= 0 || this.claiming) return { claimed: null, version: this.version };
    this.claiming = true;
    const stopCount = this.stopCount;
    const wakeCount = this.wakeCount;
    let claimed = 0;
    try {
      let items: Item[] | undefined;
      try {
        if (!this.recovered) await this.recover();
        const now = this.clock();
        items = await this.queue.claim(now, now + this.leaseMs, wanted, this.holder);
      } catch (err) {
        // Wait for the next poll rather than hammer a failing database.
        this.moreMayBeDue = false;
        this.recovered = false;
        // What a part of the claim did hand over is leased to this node: delivered, not dropped.
        if (err instanceof IncompleteClaimError) items = err.claimed as Item[];
        this.logger.error({ err: errorMessage(err), claimed: items?.length ?? 0 }, `could not claim ${this.what}; trying again at the next poll, after taking back what the claim may have leased`);
      }
      if (items === undefined) {
        // The claim failed: nothing to start or give back.
      } else if (stopCount !== this.stopCount) {
        // stop() came while the claim was on its way: hand everything back untouched.
        await this.release(items);
      } else {
        for (const item of items) this.startDelivery(item);
        claimed = items.length;
        if (claimed === wanted) this.moreMayBeDue = true;
        else if (wakeCount === this.wakeCount) this.moreMayBeDue = false;
      }
    } finally {
      this.claiming = false;
      this.changed();
      // A wake() that came during a drain()'s claim must not wait for the next poll.
      if (this.running) this.kick();
    }
    // Read after changed(): the caller waits for changes after this point, not for this claim's own.
    return { claimed, version: this.version };
  }

  /**
   * Takes back what this node's id holds but is not delivering: what the process before this one held
   * when it died, or what a failed claim leased without handing it over (their leases would otherwise
   * run out first). Done before a claim, whose items would otherwise be given back too.
   */
  private async recover(): Promise<void> {
    const released = await this.queue.releaseHeld(this.holder, this.clock(), [...this.inFlight]);
    this.recovered = true;
    if (released > 0) this.logger.info({ released, holder: this.holder }, `took back ${this.what} leased to this node that it was not delivering`);
  }

  private startDelivery(item: Item): void {
    this.inFlight.add(item);
    this.heartbeat ??= setInterval(() => void this.renew(), Math.max(1, Math.floor(this.leaseMs / 3))).unref();
    // deliver() settles its own failures; a throw here is a bug, logged rather than left unhandled.
    void this.deliverItem(item).catch((err: unknown) => {
      this.logger.error({ err: errorMessage(err) }, `delivery of ${this.what} threw; the item is retried when its lease expires`);
    }).finally(() => {
      this.inFlight.delete(item);
      if (this.inFlight.size === 0) {
        clearInterval(this.heartbeat);
        this.heartbeat = undefined;
      }
      this.changed();
      if (this.running) this.kick();
    });
  }

  /** Extends the leases of the items in flight; an item whose lease was lost may be delivered twice. */
  private async renew(): Promise<void> {
    if (this.renewing || this.inFlight.size === 0) return;
    this.renewing = true;
    const items = [...this.inFlight];
    try {
      const renewed = await this.queue.renew(items, this.holder, this.clock() + this.leaseMs);
      if (renewed < items.length) {
        // Finished meanwhile (nothing to renew any more), or claimed by another node after this one stalled.
        this.logger.debug({ inFlight: items.length, renewed }, `some leases of ${this.what} were not renewed`);
      }
    } catch (err) {
      this.logger.warn({ inFlight: items.length, err: errorMessage(err) }, `could not renew the leases of ${this.what} in flight; another node takes them over if this goes on past the lease`);
    } finally {
      this.renewing = false;
    }
  }

  private changed(): void {
    this.version += 1;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  private changedSince(version: number): Promise<void> {
    if (this.version !== version) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private async until(condition: () => boolean): Promise<void> {
    while (!condition()) await this.changedSince(this.version);
  }

  private async release(items: Item[]): Promise<void> {
    if (items.length === 0) return;
    try {
      await this.queue.release(items, this.clock());
    } catch (err) {
      this.logger.error({ count: items.length, err: errorMessage(err) }, `could not release claimed ${this.what}; they are retried when their lease expires`);
    }
  }
}

/** When an item that failed is tried again, or that it is not. */
export interface RetryPolicy {
  /** Attempts per item (the first one included) before it is recorded as failed. */
  maxAttempts: number;
  /** The n-th retry waits between half and all of min(cap, base * 2^(n-1)). */
  backoffBaseMs: number;
  backoffCapMs: number;
}

/** What settle() does with an attempt's outcome: the one decision both workers make. */
export type Decision =
  | { state: 'delivered' }
  | { state: 'retried'; error: string; retryInMs: number }
  | { state: 'failed' | 'cancelled'; error: string };

/** How an attempt ended, before the retry policy is applied. */
export type AttemptOutcome =
  | { ok: true }
  | { ok: false; error: string; final?: 'failed' | 'cancelled'; retryable?: boolean };

/**
 * Applies the retry policy to an attempt: retryable failures wait a jittered, exponentially growing
 * delay until `maxAttempts`, never reaching `notAfter` (a PIN's expiry: no retry at all when no time
 * is left). Errors are bounded here, once for both workers.
 */
export function decide(policy: RetryPolicy, attempts: number, outcome: AttemptOutcome, now: number, notAfter = Infinity): Decision {
  if (outcome.ok) return { state: 'delivered' };
  const error = boundedError(outcome.error);
  if (outcome.final !== undefined) return { state: outcome.final, error };
  if (outcome.retryable === false || attempts >= policy.maxAttempts) return { state: 'failed', error };
  const retryInMs = backoffDelay(policy, attempts, notAfter - now);
  if (retryInMs === null) return { state: 'failed', error: boundedError(`${outcome.error} (not retried: the PIN expires first)`) };
  return { state: 'retried', error, retryInMs };
}

/** The log line of a settled attempt: info when delivered or cancelled, warn when it failed (with the retry's delay if one comes). */
export function logDecision(logger: Logger, fields: Record<string, unknown>, decision: Decision, messages: Record<Settlement, string>): void {
  const message = messages[decision.state];
  if (decision.state === 'delivered') logger.info(fields, message);
  else if (decision.state === 'retried') logger.warn({ ...fields, error: decision.error, retryInMs: decision.retryInMs }, message);
  else if (decision.state === 'cancelled') logger.info({ ...fields, error: decision.error }, message);
  else logger.warn({ ...fields, error: decision.error }, message);
}

/**
 * Equal jitter: a uniform draw between half and all of an exponentially growing ceiling spreads the
 * retries of many items that failed together (a recovering provider or receiver is not hit by all of
 * them at once), and never retries at once. The ceiling stays short of `remainingMs`: null when no time
 * is left at all.
 */
export function backoffDelay(policy: Pick<RetryPolicy, 'backoffBaseMs' | 'backoffCapMs'>, attempt: number, remainingMs = Infinity): number | null {
  const exponential = policy.backoffBaseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40);
  const ceiling = Math.floor(Math.min(policy.backoffCapMs, exponential, remainingMs - 1));
  if (ceiling < 0) return null;
  const half = Math.floor(ceiling / 2);
  return half + randomInt(0, ceiling - half + 1);
}

// An error is stored with its item and may be shown in the console; a provider's whole error page is not.
const MAX_ERROR_LENGTH = 500;

export function boundedError(error: string): string {
  return error.length <= MAX_ERROR_LENGTH ? error : `${error.slice(0, MAX_ERROR_LENGTH - 1)}…`;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/**
 * True if `promise` settles within `timeoutMs`. This timer is deliberately not unref'd: a caller
 * awaiting stop() during shutdown must get its answer (and go on to close the database) even when
 * nothing else keeps the process alive.
 */
function settledWithin(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    promise.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(true);
      },
    );
  });
}
