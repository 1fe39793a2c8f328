// Rate limits and purge batches of the in-memory store, by the same rules as the database's: the
// sliding windows of rate-limiter.ts (so a limit admits the same requests and answers the same
// retry time as on SQLite) and the batch bounds of purge-batches.ts.
import { admittedOutcome, bucketExpiryOf, bucketStartOf, checkEveryWindow, nextAllowedAt } from '../rate-limiter.js';
import type { PurgeLimits } from '../purge-batches.js';
import type { RateLimitCheck, RateLimitOutcome } from '../store.js';

interface Bucket {
  hits: number;
  lastAt: number;
  expiresAt: number;
}

/**
 * The buckets of every limit key. Every method is synchronous: a caller that checks and then counts
 * without awaiting in between is atomic, as the store's transactions are.
 */
export class MemoryRateLimits {
  private readonly buckets = new Map<string, Map<number, Bucket>>();

  /**
   * Checks every limit without counting: a refusal, or a function that counts one hit on each and
   * answers the outcome. Split so that a caller can check something else between the two and still
   * count nothing when that fails (a lost workflow claim rolls the resend back).
   */
  check(limits: RateLimitCheck[], now: number): (RateLimitOutcome & { allowed: false }) | (() => RateLimitOutcome) {
    if (limits.length === 0) return () => ({ allowed: true });
    const checked = checkEveryWindow(limits, now, (check) => this.read(check, now));
    if (!('windows' in checked)) return checked;
    return () => {
      for (const check of limits) this.hit(check, now);
      return admittedOutcome(limits, checked.windows, now);
    };
  }

  /** Checks every limit and, only if all allow it, counts a hit on each. */
  consume(limits: RateLimitCheck[], now: number): RateLimitOutcome {
    const checked = this.check(limits, now);
    return typeof checked === 'function' ? checked() : checked;
  }

  peek(check: RateLimitCheck, now: number): number {
    return nextAllowedAt(this.read(check, now), check.limit, check.windowMs, now);
  }

  /** Deletes buckets whose newest possible hit has left the window; returns how many. */
  purge(now: number, limits: PurgeLimits): number {
    const expired: { key: string; start: number; expiresAt: number }[] = [];
    for (const [key, buckets] of this.buckets) for (const [start, b] of buckets) if (b.expiresAt <= now) expired.push({ key, start, expiresAt: b.expiresAt });
    const taken = firstBatches(expired.sort((x, y) => x.expiresAt - y.expiresAt), limits);
    for (const { key, start } of taken) {
      const buckets = this.buckets.get(key)!;
      buckets.delete(start);
      if (buckets.size === 0) this.buckets.delete(key);
    }
    return taken.length;
  }

  /** The buckets of `check`'s window, oldest first. */
  private read(check: RateLimitCheck, now: number): { hits: number; lastAt: number }[] {
    const since = now - check.windowMs;
    return [...(this.buckets.get(check.key)?.values() ?? [])].filter((b) => b.lastAt > since)
      .sort((x, y) => x.lastAt - y.lastAt).map((b) => ({ hits: b.hits, lastAt: b.lastAt }));
  }

  private hit(check: RateLimitCheck, now: number): void {
    let buckets = this.buckets.get(check.key);
    if (!buckets) this.buckets.set(check.key, (buckets = new Map()));
    const start = bucketStartOf(now, check.windowMs);
    const bucket = buckets.get(start);
    // The expiry is fixed when the bucket is made, as the database's upsert keeps it.
    if (bucket) {
      bucket.hits += 1;
      bucket.lastAt = now;
    } else {
      buckets.set(start, { hits: 1, lastAt: now, expiresAt: bucketExpiryOf(now, check.windowMs) });
    }
  }
}

/**
 * The rows one purge step takes of `candidates` (in the order the step's statement picks them):
 * as many as `batchesPerRun` statements of `batch` rows take, the rest being left to the next run.
 */
export function firstBatches<T>(candidates: T[], limits: PurgeLimits): T[] {
  return candidates.slice(0, limits.batch * limits.batchesPerRun);
}
