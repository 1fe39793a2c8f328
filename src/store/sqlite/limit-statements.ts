// Rate limits on SQLite (the sliding windows of rate-limiter.ts), prepared once on better-sqlite3 and
// run synchronously inside the caller's transaction: every limit is read before any is counted, and
// the one connection (nothing else runs between the statements) makes the read and the count atomic.
import type BetterSqlite3 from 'better-sqlite3';
import { admittedOutcome, bucketExpiryOf, bucketStartOf, checkEveryWindow } from '../rate-limiter.js';
import type { RateLimitCheck, RateLimitOutcome } from '../store.js';
import type { SqliteHotPath } from './hot-path.js';

interface BucketRow {
  hits: number;
  last_at: number;
}

export class SqliteLimitStatements {
  private readonly buckets: BetterSqlite3.Statement<[string, number], BucketRow>;
  private readonly hit: BetterSqlite3.Statement<[string, number, number, number]>;

  constructor(private readonly hot: SqliteHotPath) {
    const connection = hot.connection;
    this.buckets = connection.prepare('select hits, last_at from rate_limit_buckets where key = ? and last_at > ? order by last_at');
    this.hit = connection.prepare(`insert into rate_limit_buckets (key, bucket_start, hits, last_at, expires_at) values (?, ?, 1, ?, ?)
      on conflict (key, bucket_start) do update set hits = hits + 1, last_at = excluded.last_at`);
  }

  /** Checks every limit, then counts a hit on each; refused, it counts nothing. Must run inside a write transaction. */
  consume(limits: RateLimitCheck[], now: number): RateLimitOutcome {
    if (limits.length === 0) return { allowed: true };
    const checked = checkEveryWindow(limits, now, (check) => this.read(check, now));
    if (!('windows' in checked)) return checked;
    this.hot.noteWrite();
    for (const check of limits) this.hit.run(check.key, bucketStartOf(now, check.windowMs), now, bucketExpiryOf(now, check.windowMs));
    // From the buckets just read: the caller learns when the next request fits at no extra query.
    return admittedOutcome(limits, checked.windows, now);
  }

  /** The buckets of `check`'s window, oldest first. */
  read(check: RateLimitCheck, now: number): { hits: number; lastAt: number }[] {
    return this.buckets.all(check.key, now - check.windowMs).map((b) => ({ hits: b.hits, lastAt: b.last_at }));
  }
}
