// What bounds delivery is the provider, not the worker: each transport has an in-flight window (most
// messages awaiting its answer at once) and, when the operator sets one, a rate (messages started per
// second). A pacer holds both for one transport; the outbox worker and the routes send through it
// (sendPaced), and the worker claims as many messages as the windows of its transports can take.
//
// Back-pressure: when the provider answers "not now" (HTTP 429 or 503, SMPP ESME_RTHROTTLED or
// ESME_RMSGQFUL: a DeliveryResult with `throttled`), the pacer halves its window and its rate, pauses
// for the provider's Retry-After (or 1 s, doubling while the provider keeps refusing, up to 30 s) and
// sends the same message again at the head of its queue. The message is neither failed nor charged an
// attempt for it: the provider said it did not take it. The window then grows back by one slot per
// window of messages accepted and the rate by a tenth of max_tps per second (additive increase,
// multiplicative decrease, as TCP does). Answers that were already on their way when the window was
// halved do not halve it again.
//
// The rate is kept in two ways: sends are spaced 1/rate apart (with 100 ms of slack, so that a late
// timer does not lose throughput: a few sends may then go closer together), and no more than max_tps
// start within any one second, whatever the timers do, which is what a provider counting per second sees.
import type { Metrics } from '../observability/metrics.js';
import type { DeliveryResult, OutgoingMessage, Pacing, Throttled, Transport } from './transport.js';

export interface PacingLimits {
  /** Most messages awaiting the transport's answer at once. */
  maxInFlight: number;
  /** Most messages started per second; undefined: no rate of its own (the window bounds it). */
  maxTps?: number | undefined;
  /**
   * Most messages started per second by all the nodes together (max_tps_global): each node takes an
   * equal share, `globalTps / live nodes` (shareGlobalRate), never more than its own maxTps.
   */
  globalTps?: number | undefined;
}

export interface PacerOptions {
  /** Monotonic milliseconds, for the pauses and the rate; injectable for tests. */
  now?: () => number;
  /** The node's clock (Unix ms), which PIN expiries are read against; default Date.now. */
  clock?: () => number;
  metrics?: Pick<Metrics, 'transportThrottled'>;
  /** Told once per halving, for the log. */
  onThrottled?: (event: { transport: string; pauseMs: number; window: number; tps: number | undefined }) => void;
}

/** How long a message may wait on a throttling provider when it carries no expiry of its own. */
export const DEFAULT_THROTTLE_HOLD_MS = 5 * 60_000;
const FIRST_PAUSE_MS = 1000;
const MAX_PAUSE_MS = 30_000;
/** Retry-After is the provider's word, but a message is not held for longer than this per answer. */
const MAX_RETRY_AFTER_MS = 5 * 60_000;
const RATE_SLACK_MS = 100;

interface Waiter {
  resolve: (epoch: number) => void;
}

export class TransportPacer implements Pacing {
  readonly maxInFlight: number;
  /** The rate this node holds: max_tps, or its share of max_tps_global when that is lower. */
  maxTps: number | undefined;
  readonly globalTps: number | undefined;
  private readonly ownMaxTps: number | undefined;
  private readonly now: () => number;
  private readonly clock: () => number;
  private readonly metrics: PacerOptions['metrics'];
  private readonly onThrottled: PacerOptions['onThrottled'];

  private inFlight = 0;
  /** The window in force: maxInFlight, or less after the provider throttled (a float: it grows by fractions). */
  private window: number;
  /** The rate in force, when there is one. */
  private tps: number | undefined;
  /** When the next send may start by the spacing (GCRA's theoretical arrival time). */
  private nextStartAt = 0;
  /** Start times of the last maxTps sends (a ring): none may start while the oldest is less than a second old. */
  private recentStarts: Float64Array;
  private recentCount = 0;
  private recentOldest = 0;
  private pausedUntil = 0;
  private consecutiveThrottles = 0;
  private lastRateIncreaseAt = 0;
  /** Bumped by each halving: an answer to a send started before it does not halve again. */
  private epoch = 0;
  /** Messages the provider refused with "not now" go first, then the others in arrival order. */
  private readonly again: Waiter[] = [];
  private readonly queue: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(readonly transport: string, limits: PacingLimits, options: PacerOptions = {}) {
    if (!Number.isInteger(limits.maxInFlight) || limits.maxInFlight < 1) throw new RangeError(`maxInFlight must be a positive integer, got ${limits.maxInFlight}`);
    if (limits.maxTps !== undefined && !(limits.maxTps > 0)) throw new RangeError(`maxTps must be positive, got ${limits.maxTps}`);
    if (limits.globalTps !== undefined && !(limits.globalTps > 0)) throw new RangeError(`globalTps must be positive, got ${limits.globalTps}`);
    this.maxInFlight = limits.maxInFlight;
    this.ownMaxTps = limits.maxTps;
    this.globalTps = limits.globalTps;
    // Until the nodes are counted, as if this one were alone.
    this.maxTps = Math.min(limits.maxTps ?? Infinity, limits.globalTps ?? Infinity);
    if (this.maxTps === Infinity) this.maxTps = undefined;
    this.window = limits.maxInFlight;
    this.tps = this.maxTps;
    this.recentStarts = new Float64Array(this.maxTps === undefined ? 0 : Math.ceil(this.maxTps));
    this.now = options.now ?? (() => performance.now());
    this.clock = options.clock ?? Date.now;
    this.metrics = options.metrics;
    this.onThrottled = options.onThrottled;
  }

  /**
   * Sends through `send` within the window and the rate; a throttled answer slows the transport and
   * sends again, until the provider takes or refuses the message or `notAfter` (the PIN's expiry, on
   * the node's clock) would pass before the pause ends: then the throttled answer is returned
   * (retryable, like any "not now").
   */
  async run(send: () => Promise<DeliveryResult>, notAfter?: number): Promise<DeliveryResult> {
    const giveUpAt = notAfter ?? this.clock() + DEFAULT_THROTTLE_HOLD_MS;
    let again = false;
    for (;;) {
      const epoch = await this.acquire(again);
      let result: DeliveryResult;
      try {
        result = await send();
      } catch (err) {
        this.inFlight -= 1;
        this.pump();
        throw err;
      }
      this.inFlight -= 1;
      if (result.ok || result.throttled === undefined) {
        if (result.ok) this.accepted();
        this.pump();
        return result;
      }
      this.throttled(epoch, result.throttled.retryAfterMs);
      this.pump();
      if (this.clock() + this.pausedUntil - this.now() >= giveUpAt) return result;
      again = true;
    }
  }

  /**
   * Takes this node's share of max_tps_global among `nodes` live nodes (nothing to do without one).
   * The starts of the last second are kept, so that a lower share holds from the first send after it.
   */
  shareGlobalRate(nodes: number): void {
    if (this.globalTps === undefined) return;
    const share = Math.min(this.ownMaxTps ?? Infinity, this.globalTps / Math.max(1, nodes));
    if (share === this.maxTps) return;
    const recent: number[] = [];
    for (let i = 0; i < this.recentCount; i++) recent.push(this.recentStarts[(this.recentOldest + i) % this.recentStarts.length] as number);
    // At its full rate, the transport moves to the new share; slowed down by its provider, it stays slower.
    const atFullRate = this.tps === undefined || this.maxTps === undefined || this.tps >= this.maxTps;
    this.maxTps = share;
    this.tps = atFullRate ? share : Math.min(this.tps as number, share);
    this.recentStarts = new Float64Array(Math.ceil(share));
    const kept = recent.slice(-this.recentStarts.length);
    this.recentStarts.set(kept);
    this.recentCount = kept.length;
    this.recentOldest = 0;
    this.pump();
  }

  /** What the pacer allows now, for tests and the log. */
  state(): { inFlight: number; window: number; tps: number | undefined; pausedForMs: number } {
    return { inFlight: this.inFlight, window: Math.floor(this.window), tps: this.tps, pausedForMs: Math.max(0, this.pausedUntil - this.now()) };
  }

  private acquire(again: boolean): Promise<number> {
    return new Promise((resolve) => {
      (again ? this.again : this.queue).push({ resolve });
      this.pump();
    });
  }

  /** Starts as many waiting sends as the pause, the window and the rate allow; else sets a timer for when one may. */
  private pump(): void {
    for (;;) {
      if (this.again.length + this.queue.length === 0) return;
      if (this.inFlight >= Math.max(1, Math.floor(this.window))) return;
      const now = this.now();
      const wait = this.waitBeforeStart(now);
      if (wait > 0) {
        this.wakeAt(now + wait);
        return;
      }
      this.start(now);
      const waiter = (this.again.shift() ?? this.queue.shift()) as Waiter;
      this.inFlight += 1;
      waiter.resolve(this.epoch);
    }
  }

  /** Milliseconds until the pause, the spacing and the per-second cap all allow a start. */
  private waitBeforeStart(now: number): number {
    let wait = this.pausedUntil - now;
    if (this.tps !== undefined) {
      // Slack of a tenth of a second: a timer that fires late (a busy event loop) is made up by the
      // sends after it rather than lost; the per-second cap below still holds whatever the slack.
      wait = Math.max(wait, this.nextStartAt - now - RATE_SLACK_MS);
      if (this.recentCount === this.recentStarts.length) {
        wait = Math.max(wait, (this.recentStarts[this.recentOldest] as number) + 1000 - now);
      }
    }
    return wait;
  }

  private start(now: number): void {
    if (this.tps === undefined || this.maxTps === undefined) return;
    this.nextStartAt = Math.max(this.nextStartAt, now) + this.spacing();
    const size = this.recentStarts.length;
    if (this.recentCount < size) {
      this.recentStarts[(this.recentOldest + this.recentCount) % size] = now;
      this.recentCount += 1;
    } else {
      this.recentStarts[this.recentOldest] = now;
      this.recentOldest = (this.recentOldest + 1) % size;
    }
  }

  private spacing(): number {
    return 1000 / (this.tps as number);
  }

  private wakeAt(at: number): void {
    if (this.timer !== undefined && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    }, Math.max(1, Math.ceil(at - this.now())));
  }

  private accepted(): void {
    this.consecutiveThrottles = 0;
    if (this.window < this.maxInFlight) this.window = Math.min(this.maxInFlight, this.window + 1 / this.window);
    if (this.tps !== undefined && this.maxTps !== undefined && this.tps < this.maxTps) {
      const now = this.now();
      const elapsed = Math.min(1000, now - this.lastRateIncreaseAt);
      this.lastRateIncreaseAt = now;
      this.tps = Math.min(this.maxTps, this.tps + (this.maxTps / 10) * (elapsed / 1000));
    }
  }

  private throttled(epoch: number, retryAfterMs: number | undefined): void {
    const now = this.now();
    this.consecutiveThrottles += 1;
    const pauseMs = retryAfterMs !== undefined
      ? Math.min(MAX_RETRY_AFTER_MS, Math.max(0, retryAfterMs))
      : Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** Math.min(this.consecutiveThrottles - 1, 10));
    const until = now + pauseMs;
    // The pause this adds to one already running; all of it when none is (taken as is: now + pause - now
    // of a fractional clock can come out a hair short of the pause).
    const added = this.pausedUntil <= now ? pauseMs : Math.max(0, until - this.pausedUntil);
    if (added > 0) {
      this.pausedUntil = until;
      this.metrics?.transportThrottled(this.transport, added);
    }
    // Answers to sends started before the last halving say nothing new about the provider.
    if (epoch !== this.epoch) return;
    this.epoch += 1;
    this.window = Math.max(1, this.window / 2);
    if (this.tps !== undefined && this.maxTps !== undefined) {
      this.tps = Math.max(this.maxTps / 64, this.tps / 2);
      this.lastRateIncreaseAt = until;
      this.nextStartAt = until;
    }
    this.onThrottled?.({ transport: this.transport, pauseMs, window: Math.floor(this.window), tps: this.tps });
  }
}

/**
 * Sends through the transport's pacer when it has one (a leaf built from a DSN), else directly (a
 * route paces its members). `observe` is told how long each call of the transport took, the time
 * spent waiting for the window, the rate or a pause not included.
 */
export function sendPaced(transport: Transport, message: OutgoingMessage, observe?: (durationMs: number) => void): Promise<DeliveryResult> {
  const send = async () => {
    const startedAt = performance.now();
    try {
      return await transport.send(message);
    } finally {
      observe?.(performance.now() - startedAt);
    }
  };
  const pacer = transport.pacer;
  return pacer === undefined ? send() : pacer.run(send, message.expiresAt);
}

/** The `throttled` of a result whose answer carried this Retry-After header (or none). */
export function throttledFor(retryAfterHeader: string | undefined): Throttled {
  const ms = retryAfterMs(retryAfterHeader);
  return ms === undefined ? {} : { retryAfterMs: ms };
}

/** Parses a Retry-After header (seconds, or an HTTP date) into milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
