// The rate-limiter port. The store implements it by default (buckets in the database, consumed in the
// same transaction as the write they guard); a Redis implementation takes the counters off the
// database when TWOFA_REDIS_URL is set. Both run the same sliding-window bucket algorithm, so a limit
// admits the same requests and answers the same Retry-After whichever one counts.
import type { RateLimitCheck, RateLimitOutcome } from './store.js';

export interface RateLimiter {
  /**
   * Checks every limit and, only if all allow the request, counts one hit on each: a refused request
   * consumes nothing. Atomic across concurrent callers on every node.
   */
  consumeRateLimits(limits: RateLimitCheck[], now: number): Promise<RateLimitOutcome>;
  /**
   * When one more hit on `check` would be allowed (`now` while there is room), counting nothing: for
   * a screen's countdown (the next resend), not a gate.
   */
  peekRateLimit(check: RateLimitCheck, now: number): Promise<number>;
}

/** A rate limiter outside the database: it has its own connection to check and to close. */
export interface ExternalRateLimiter extends RateLimiter {
  /** Throws when the limiter cannot be reached (for /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Hits are grouped in buckets of 1/60 of the window. A bucket counts until its newest hit leaves the
 * window, so the count is never below the true sliding-window count (the limit errs on the strict
 * side), and a refusal's retry time is exact to the hit that frees a slot, never beyond the window.
 */
export const BUCKETS_PER_WINDOW = 60;

/** Start of the bucket a hit at `now` falls in, for a window of `windowMs`. */
export function bucketStartOf(now: number, windowMs: number): number {
  const bucketMs = bucketLengthOf(windowMs);
  return Math.floor(now / bucketMs) * bucketMs;
}

function bucketLengthOf(windowMs: number): number {
  return Math.max(1, Math.floor(windowMs / BUCKETS_PER_WINDOW));
}

/**
 * When the bucket a hit at `now` falls in may be deleted: once its latest possible hit (the bucket's
 * end) has left the window. Fixed when the bucket is created, so that a later hit rewrites its count
 * and time but no entry of the expiry index.
 */
export function bucketExpiryOf(now: number, windowMs: number): number {
  return bucketStartOf(now, windowMs) + bucketLengthOf(windowMs) + windowMs;
}

/**
 * When a request refused by a full window fits again: once enough of the oldest buckets (sorted by
 * their newest hit) have left the window. `total` is the window's count, at or above `limit`.
 */
export function retryAfterMs(buckets: { hits: number; lastAt: number }[], total: number, limit: number, windowMs: number, now: number): number {
  let retryAt = now + windowMs;
  for (const b of buckets) {
    total -= b.hits;
    if (total < limit) {
      retryAt = b.lastAt + windowMs;
      break;
    }
  }
  return Math.max(1, retryAt - now);
}

/** When the next hit fits, given the window's buckets (sorted by their newest hit): `now` while there is room. */
export function nextAllowedAt(buckets: { hits: number; lastAt: number }[], limit: number, windowMs: number, now: number): number {
  const total = buckets.reduce((sum, b) => sum + b.hits, 0);
  return total < limit ? now : now + retryAfterMs(buckets, total, limit, windowMs, now);
}

/**
 * nextAllowedAt once a hit at `now` is counted, from the buckets read before counting it: the hit
 * joins the current bucket (whose hits are the only ones at or after its start) and makes it the newest.
 */
export function nextAllowedAfterHit(before: { hits: number; lastAt: number }[], limit: number, windowMs: number, now: number): number {
  const start = bucketStartOf(now, windowMs);
  const current = before.filter((b) => b.lastAt >= start).reduce((sum, b) => sum + b.hits, 0);
  return nextAllowedAt([...before.filter((b) => b.lastAt < start), { hits: current + 1, lastAt: now }], limit, windowMs, now);
}

/**
 * The refusal when `check`'s window (its buckets, sorted by their newest hit) is full: which key and
 * when a slot frees; undefined while it has room. Every store checks every limit this way before it
 * counts any, so that a refused request counts nothing on any key.
 */
export function windowRefusal(check: RateLimitCheck, buckets: { hits: number; lastAt: number }[], now: number): (RateLimitOutcome & { allowed: false }) | undefined {
  const total = buckets.reduce((sum, b) => sum + b.hits, 0);
  return total >= check.limit ? { allowed: false, key: check.key, retryAfterMs: retryAfterMs(buckets, total, check.limit, check.windowMs, now) } : undefined;
}

type Window = { hits: number; lastAt: number }[];

/**
 * Every limit checked before any is counted, so that a refused request counts nothing on any key:
 * the first full window's refusal, or every window as read (`read`: its buckets, sorted by their
 * newest hit), from which admittedOutcome answers once the hits are counted.
 */
export function checkEveryWindow(limits: RateLimitCheck[], now: number, read: (check: RateLimitCheck) => Window): (RateLimitOutcome & { allowed: false }) | { windows: Window[] } {
  const windows: Window[] = [];
  for (const check of limits) {
    const window = read(check);
    const refused = windowRefusal(check, window, now);
    if (refused) return refused;
    windows.push(window);
  }
  return { windows };
}

/** The outcome once a hit at `now` is counted on each of `limits`, from their windows as read before: when each key's next hit fits. */
export function admittedOutcome(limits: RateLimitCheck[], windows: { hits: number; lastAt: number }[][], now: number): RateLimitOutcome {
  const nextAllowed: Record<string, number> = {};
  for (const [i, check] of limits.entries()) nextAllowed[check.key] = nextAllowedAfterHit(windows[i]!, check.limit, check.windowMs, now);
  return { allowed: true, nextAllowedAt: nextAllowed };
}
