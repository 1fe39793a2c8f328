// Slows down key guessing: failed authentications (401) are counted per client address and per
// presented key prefix, and past TWOFA_AUTH_FAILURE_LIMIT a request is answered 429 before its key is
// even looked up. The counts live in this node's memory: nothing is written for a valid request, and
// a failure costs a few map operations. With several nodes behind a load balancer each node counts
// its own share, so the effective limit is up to the number of nodes times the configured one.
import type { RateLimit } from '../domain/durations.js';
import { bucketStartOf, retryAfterMs } from '../store/rate-limiter.js';

interface Bucket {
  start: number;
  hits: number;
  lastAt: number;
}

/** Most keys tracked per counter; past it the least recently failing key is forgotten first. */
const DEFAULT_MAX_KEYS = 50_000;

/**
 * Sliding-window failure counts per key, in buckets of 1/60 of the window: the same algorithm and
 * Retry-After as the store's rate limits (store/rate-limiter.ts).
 */
export class FailureWindows {
  private readonly keys = new Map<string, Bucket[]>();

  constructor(private readonly limit: RateLimit, private readonly maxKeys = DEFAULT_MAX_KEYS) {}

  /** The buckets still inside the window (older ones are dropped), or undefined when none is. */
  private live(key: string, now: number): Bucket[] | undefined {
    const buckets = this.keys.get(key);
    if (buckets === undefined) return undefined;
    const kept = buckets.filter((b) => b.lastAt > now - this.limit.windowMs);
    if (kept.length === 0) {
      this.keys.delete(key);
      return undefined;
    }
    if (kept.length !== buckets.length) this.keys.set(key, kept);
    return kept;
  }

  empty(): boolean {
    return this.keys.size === 0;
  }

  /** Failures of `key` still inside the window. */
  count(key: string, now: number): number {
    if (this.keys.size === 0) return 0;
    return this.live(key, now)?.reduce((sum, b) => sum + b.hits, 0) ?? 0;
  }

  /** Milliseconds until `key` may try again, or undefined while it is under the limit. */
  retryAfter(key: string, now: number): number | undefined {
    if (this.keys.size === 0) return undefined;
    const buckets = this.live(key, now);
    if (buckets === undefined) return undefined;
    const total = buckets.reduce((sum, b) => sum + b.hits, 0);
    if (total < this.limit.count) return undefined;
    return retryAfterMs([...buckets].sort((a, b) => a.lastAt - b.lastAt), total, this.limit.count, this.limit.windowMs, now);
  }

  record(key: string, now: number): void {
    const buckets = this.live(key, now) ?? [];
    const start = bucketStartOf(now, this.limit.windowMs);
    const current = buckets.find((b) => b.start === start);
    if (current) {
      current.hits += 1;
      current.lastAt = now;
    } else {
      buckets.push({ start, hits: 1, lastAt: now });
    }
    // Re-inserted so that the map's order is least recently failing first.
    this.keys.delete(key);
    this.keys.set(key, buckets);
    if (this.keys.size > this.maxKeys) this.keys.delete(this.keys.keys().next().value as string);
  }
}

export type ThrottledBy = 'ip' | 'prefix';

export interface Throttled {
  by: ThrottledBy;
  retryAfterMs: number;
  /** The first refusal of this address or prefix since it went past the limit: the one to report. */
  first: boolean;
}

export class AuthFailureThrottle {
  private readonly byIp: FailureWindows;
  private readonly byPrefix: FailureWindows;
  /** Until when each throttled address or prefix has been reported, so a flood is reported once, not per request. */
  private readonly reportedUntil = new Map<string, number>();

  constructor(limit: RateLimit, private readonly maxKeys = DEFAULT_MAX_KEYS) {
    this.byIp = new FailureWindows(limit, maxKeys);
    this.byPrefix = new FailureWindows(limit, maxKeys);
  }

  /** True when no failure is being counted: a request needs no check at all. */
  idle(): boolean {
    return this.byIp.empty() && this.byPrefix.empty();
  }

  private refusal(by: ThrottledBy, key: string, retryAfterMs: number, now: number): Throttled {
    const id = `${by}:${key}`;
    const first = (this.reportedUntil.get(id) ?? 0) <= now;
    if (first) {
      this.reportedUntil.delete(id);
      this.reportedUntil.set(id, now + retryAfterMs);
      if (this.reportedUntil.size > this.maxKeys) this.reportedUntil.delete(this.reportedUntil.keys().next().value as string);
    }
    return { by, retryAfterMs, first };
  }

  /**
   * Whether this request is refused before its key is looked up. A client address past the limit
   * is refused. A key prefix past the limit (many addresses guessing at one key) is refused only
   * from addresses that have themselves failed within the window: the key's owner, calling from
   * elsewhere with the right key, is never locked out by someone guessing at it.
   */
  check(ipKey: string | undefined, prefix: string | undefined, now: number): Throttled | undefined {
    if (ipKey === undefined) return undefined;
    const ipWait = this.byIp.retryAfter(ipKey, now);
    if (ipWait !== undefined) return this.refusal('ip', ipKey, ipWait, now);
    if (prefix === undefined || this.byIp.count(ipKey, now) === 0) return undefined;
    const prefixWait = this.byPrefix.retryAfter(prefix, now);
    return prefixWait === undefined ? undefined : this.refusal('prefix', prefix, prefixWait, now);
  }

  recordFailure(ipKey: string | undefined, prefix: string | undefined, now: number): void {
    if (ipKey !== undefined) this.byIp.record(ipKey, now);
    if (prefix !== undefined) this.byPrefix.record(prefix, now);
  }
}
