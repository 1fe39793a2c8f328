// Delivers what the API queued: claims due outbox rows under a lease, renders each message in memory,
// hands it to the channel's transport and records the outcome on the outbox row and the PIN.
// Delivery is at least once: a worker that dies mid-send leaves its lease to expire and a later claim
// (here or on another node) picks the row up again, so a message may rarely arrive twice but is never
// lost.
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import { maskDestination } from '../domain/destinations.js';
import type { PinKeyring } from '../domain/pin-secrets.js';
import { noopMetrics, type Metrics } from '../observability/metrics.js';
import type { AuditEntryInput } from '../store/audit-store.js';
import type { Channel, OutboxRecord, Store } from '../store/store.js';
import { composeMessage, type ComposeResult } from './message-composer.js';
import type { DeliveryResult, Transport } from './transport.js';

/**
 * Appends an entry to the account's audit log, masking the full destination it is given, and never
 * throws (service/audit-log.ts appendAudit, injected so that delivery does not import the services).
 */
export type AuditAppender = (entry: AuditEntryInput & { destination?: string | null }) => Promise<void>;

export interface OutboxWorkerDeps {
  store: Store;
  keyring: PinKeyring;
  /** Records each delivery outcome in the account's audit log. */
  audit: AuditAppender;
  /** A channel without a transport is switched off: its messages fail at once. */
  transports: Partial<Record<Channel, Transport>>;
  /** Unix milliseconds; injectable so tests can move time past a backoff. */
  clock: () => number;
  logger: Logger;
  /** Attempts per message (the first one included) before it is recorded as failed. */
  maxAttempts: number;
  /** How often to look for due messages when nobody calls wake() (retries become due this way). */
  pollIntervalMs?: number;
  /** How long a claimed message is ours; past it another worker may take it over. */
  leaseMs?: number;
  /** Most messages claimed at once (never more than there are free lanes, see claimAndStart). */
  batchSize?: number;
  /** Deliveries in flight at once. */
  concurrency?: number;
  /** First retry waits up to this long; each further one up to twice as long. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  metrics?: Metrics;
  /** Told once a message failed for good (not when cancelled): the PIN's workflow moves to its next step. */
  onFailed?: (item: OutboxRecord, error: string) => Promise<void>;
}

export interface OutboxWorkerStats {
  delivered: number;
  retried: number;
  failed: number;
  cancelled: number;
}

const DEFAULT_STOP_TIMEOUT_MS = 10_000;

export class OutboxWorker {
  private readonly store: Store;
  private readonly keyring: PinKeyring;
  private readonly appendAudit: AuditAppender;
  private readonly transports: Partial<Record<Channel, Transport>>;
  private readonly clock: () => number;
  private readonly logger: Logger;
  private readonly maxAttempts: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly backoffBaseMs: number;
  private readonly backoffCapMs: number;
  private readonly metrics: Metrics;
  private readonly onFailed: OutboxWorkerDeps['onFailed'];

  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private timerDueAt = 0;
  /** Deliveries under way. */
  private active = 0;
  /** One claim at a time, so two claims cannot both count the same free lanes. */
  private claiming = false;
  /** Set by wake() and by a claim that filled every free lane; cleared by a claim that found less. */
  private moreMayBeDue = true;
  private wakeCount = 0;
  private stopCount = 0;
  /** Bumped whenever a claim or a delivery ends; waiters compare it to see that something changed. */
  private version = 0;
  private waiters: (() => void)[] = [];
  private readonly counters: OutboxWorkerStats = { delivered: 0, retried: 0, failed: 0, cancelled: 0 };

  constructor(deps: OutboxWorkerDeps) {
    this.store = deps.store;
    this.keyring = deps.keyring;
    this.appendAudit = deps.audit;
    this.transports = deps.transports;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.maxAttempts = positiveInteger('maxAttempts', deps.maxAttempts);
    this.pollIntervalMs = positiveInteger('pollIntervalMs', deps.pollIntervalMs ?? 1000);
    this.leaseMs = positiveInteger('leaseMs', deps.leaseMs ?? 60_000);
    this.batchSize = positiveInteger('batchSize', deps.batchSize ?? 32);
    this.concurrency = positiveInteger('concurrency', deps.concurrency ?? 8);
    this.backoffBaseMs = positiveInteger('backoffBaseMs', deps.backoffBaseMs ?? 1000);
    this.backoffCapMs = positiveInteger('backoffCapMs', deps.backoffCapMs ?? 5 * 60_000);
    this.metrics = deps.metrics ?? noopMetrics;
    this.onFailed = deps.onFailed;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.moreMayBeDue = true;
    this.schedule(0);
  }

  /** Looks for due messages now rather than at the next poll; called right after a send commits. */
  wake(): void {
    // Counted so that a claim already on its way (which may have run before the new row committed)
    // does not conclude that nothing is due.
    this.wakeCount += 1;
    this.moreMayBeDue = true;
    if (this.running) this.kick();
  }

  /**
   * Stops claiming and waits up to `timeoutMs` for deliveries in flight. Messages claimed after
   * stop() was called are given back at once, so another node takes them without waiting for the
   * lease; a delivery still running after the timeout keeps its lease and is retried once it expires.
   */
  async stop(timeoutMs = DEFAULT_STOP_TIMEOUT_MS): Promise<void> {
    this.running = false;
    this.stopCount += 1;
    clearTimeout(this.timer);
    this.timer = undefined;
    const finished = await settledWithin(this.until(() => !this.claiming && this.active === 0), timeoutMs);
    if (!finished) {
      this.logger.warn({ timeoutMs, inFlight: this.active }, 'outbox worker stopped with deliveries still in flight; they are retried when their lease expires');
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
      if (claimed === 0 && this.active === 0 && !this.claiming) return;
      // Lanes full, nothing due while deliveries run (one may schedule a retry due at once), or another
      // claim under way: wait until a delivery or claim ends rather than query again at once.
      if (claimed === null || claimed === 0) await this.changedSince(version);
    }
  }

  stats(): OutboxWorkerStats {
    return { ...this.counters };
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
    return Math.min(this.batchSize, this.concurrency - this.active);
  }

  /**
   * Claims at most as many messages as there are free lanes and starts each at once. Claiming no more
   * than can run means no message sits leased while it waits for a lane, and a slow delivery never
   * holds up the others: a lane that frees up claims again. `claimed` is null when no claim was made
   * (no free lane, or another claim under way). Never throws.
   */
  private async claimAndStart(): Promise<{ claimed: number | null; version: number }> {
    const wanted = this.freeLanes();
    if (wanted <= 0 || this.claiming) return { claimed: null, version: this.version };
    this.claiming = true;
    const stopCount = this.stopCount;
    const wakeCount = this.wakeCount;
    let claimed = 0;
    try {
      const now = this.clock();
      let items: OutboxRecord[] | undefined;
      try {
        items = await this.store.claimOutbox(now, now + this.leaseMs, wanted);
      } catch (err) {
        // Wait for the next poll rather than hammer a failing database.
        this.moreMayBeDue = false;
        this.logger.error({ err: errorMessage(err) }, 'could not claim outbox messages; trying again at the next poll');
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

  private startDelivery(item: OutboxRecord): void {
    this.active += 1;
    void this.deliver(item).finally(() => {
      this.active -= 1;
      this.changed();
      if (this.running) this.kick();
    });
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

  /** Delivers one message and records the outcome. Never throws: one bad message must not stop the loop. */
  private async deliver(item: OutboxRecord): Promise<void> {
    let composed: ComposeResult;
    try {
      composed = await composeMessage(this.store, this.keyring, item, this.clock());
    } catch (err) {
      // Most likely the database: worth another try later, like a provider outage.
      await this.retryOrFail(item, boundedError(`could not prepare the message: ${errorMessage(err)}`), true, undefined, undefined, undefined);
      return;
    }

    if (!composed.ok) {
      const state = composed.reason === 'ended' ? 'cancelled' : 'failed';
      await this.record(item, () => this.store.failOutbox(item.id, item.pinId, composed.error, this.clock(), state));
      if (state === 'failed') await this.onFailed?.(item, composed.error);
      this.counters[state] += 1;
      await this.audit(item, `delivery.${state}`, composed.error);
      this.metrics.delivery(item.channel, 'none', state);
      const fields = { pinId: item.pinId, channel: item.channel, error: composed.error };
      if (state === 'cancelled') this.logger.info(fields, 'delivery cancelled');
      else this.logger.warn(fields, 'delivery failed');
      return;
    }

    const message = composed.message;
    const to = maskDestination(message.to);
    const transport = this.transports[item.channel];
    if (transport === undefined) {
      const error = `no transport configured for ${item.channel}`;
      await this.record(item, () => this.store.failOutbox(item.id, item.pinId, error, this.clock(), 'failed'));
      await this.onFailed?.(item, error);
      this.counters.failed += 1;
      this.metrics.delivery(item.channel, 'none', 'failed');
      await this.audit(item, 'delivery.failed', error, message.to);
      this.logger.warn({ pinId: item.pinId, channel: item.channel, to, error }, 'delivery failed');
      return;
    }

    let result: DeliveryResult;
    const startedAt = performance.now();
    try {
      result = await transport.send(message);
    } catch (err) {
      // A transport bug or an unexpected network failure: assume it may pass.
      result = { ok: false, retryable: true, error: errorMessage(err) };
    }
    if (!result.ok) result = { ...result, error: boundedError(result.error) };
    this.metrics.transportLatency(item.channel, transport.name, performance.now() - startedAt);

    if (result.ok) {
      const accepted = { transport: result.transport ?? transport.name, providerMessageId: result.providerMessageId };
      await this.record(item, () => this.store.completeOutbox(item.id, item.pinId, this.clock(), accepted));
      this.counters.delivered += 1;
      await this.audit(item, 'delivery.sent', accepted.transport, message.to);
      this.metrics.delivery(item.channel, transport.name, 'delivered');
      this.logger.info(
        { pinId: item.pinId, channel: item.channel, to, transport: transport.name, attempt: item.attempts },
        'message sent',
      );
      return;
    }
    await this.retryOrFail(item, result.error, result.retryable, composed.expiresAt, to, transport.name);
  }

  private async retryOrFail(
    item: OutboxRecord,
    error: string,
    retryable: boolean,
    expiresAt: number | undefined,
    to: string | undefined,
    transport: string | undefined,
  ): Promise<void> {
    const now = this.clock();
    const fields = { pinId: item.pinId, channel: item.channel, to, transport, attempt: item.attempts, error };
    let finalError = error;
    if (retryable && item.attempts < this.maxAttempts) {
      const delay = this.backoffDelay(item.attempts, expiresAt === undefined ? Infinity : expiresAt - now);
      if (delay !== null) {
        await this.record(item, () => this.store.retryOutbox(item.id, item.pinId, now + delay, error, now));
        this.counters.retried += 1;
        this.metrics.delivery(item.channel, transport ?? 'none', 'retried');
        this.logger.warn({ ...fields, retryInMs: delay }, 'delivery failed; will retry');
        return;
      }
      finalError = `${error} (not retried: the PIN expires first)`;
    }
    await this.record(item, () => this.store.failOutbox(item.id, item.pinId, finalError, now, 'failed'));
    await this.onFailed?.(item, finalError);
    this.counters.failed += 1;
    this.metrics.delivery(item.channel, transport ?? 'none', 'failed');
    await this.audit(item, 'delivery.failed', finalError);
    this.logger.warn({ ...fields, error: finalError }, 'delivery failed');
  }

  /**
   * Full jitter (a uniform draw up to an exponentially growing ceiling) spreads the retries of many
   * messages that failed together, so a recovering provider is not hit by all of them at once. The
   * ceiling never reaches past the PIN's expiry: null when no time is left at all.
   */
  private backoffDelay(attempt: number, remainingMs: number): number | null {
    const exponential = this.backoffBaseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40);
    const ceiling = Math.floor(Math.min(this.backoffCapMs, exponential, remainingMs - 1));
    if (ceiling < 0) return null;
    return randomInt(0, ceiling + 1);
  }

  /**
   * Runs a store write that records an outcome. If it fails the message keeps its lease and is
   * delivered again after it expires: a possible duplicate, never a loss.
   */
  private async record(item: OutboxRecord, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      this.logger.error(
        { pinId: item.pinId, channel: item.channel, err: errorMessage(err) },
        'could not record the delivery outcome; the message is retried when its lease expires',
      );
    }
  }

  /** The delivery outcome in the account's audit log (never throws). */
  private async audit(item: OutboxRecord, event: string, reason: string, destination?: string): Promise<void> {
    await this.appendAudit({
      accountId: item.accountId, at: this.clock(), event, pinId: item.pinId, destination: destination ?? null, actor: 'delivery', reason,
    });
  }

  private async release(items: OutboxRecord[]): Promise<void> {
    if (items.length === 0) return;
    try {
      await this.store.releaseOutbox(items.map((item) => ({ id: item.id, pinId: item.pinId })), this.clock());
    } catch (err) {
      this.logger.error({ count: items.length, err: errorMessage(err) }, 'could not release claimed outbox messages; they are retried when their lease expires');
    }
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`OutboxWorker: ${name} must be a positive integer, got ${value}`);
  return value;
}

// The error is stored on the PIN and may be shown in the console; a provider's whole error page is not.
const MAX_ERROR_LENGTH = 500;

function boundedError(error: string): string {
  return error.length <= MAX_ERROR_LENGTH ? error : `${error.slice(0, MAX_ERROR_LENGTH - 1)}…`;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
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
