// Rate limits counted in the database: sliding windows of 60 buckets per key (rate-limiter.ts),
// checked and counted with the write they guard. SQLite reads and upserts the buckets inside the
// caller's transaction (sqlite/limit-statements.ts; its one connection serialises transactions); PostgreSQL counts them in the
// same statement as the write (postgres/hot-statements.ts), where a refusal aborts the statement and
// becomes an outcome here. With an external limiter (Redis) the database counts nothing.
import type { Kysely, Transaction } from 'kysely';
import * as pgHot from './postgres/hot-statements.js';
import { RateLimitRefusal } from './postgres/hot-statements.js';
import { PreparedQuery } from './prepared-query.js';
import { nextAllowedAt, windowRefusal, type ExternalRateLimiter } from './rate-limiter.js';
import type { Database } from './schema.js';
import type { SqliteLimitStatements } from './sqlite/limit-statements.js';
import type { RateLimitCheck, RateLimitOutcome } from './store.js';

export class DatabaseRateLimits {
  private readonly rateBuckets = new PreparedQuery<{ key: string; since: number }, { hits: number; last_at: number }>((db: Kysely<Database>, p) =>
    db.selectFrom('rate_limit_buckets').select(['hits', 'last_at']).where('key', '=', p('key')).where('last_at', '>', p('since')).orderBy('last_at'));

  /** `sqlite`: the SQLite store's statements (asked for on first use, after the migrations). */
  constructor(private readonly db: Kysely<Database>, private readonly dialect: 'sqlite' | 'postgres', private readonly externalLimiter: ExternalRateLimiter | undefined,
    private readonly sqlite: () => SqliteLimitStatements) {}

  /**
   * Sliding-window limits, all checked before any is counted, inside the caller's transaction. On
   * SQLite the single connection serialises transactions. On PostgreSQL they are counted by one
   * statement whose upserts lock each key's current bucket until the transaction ends
   * (postgres/hot-statements.ts); a refusal throws RateLimitRefusal, which aborts the transaction and
   * becomes the outcome in refusable().
   *
   * With an external limiter (Redis) the hits are counted there, before the caller's write: if that
   * write then fails (database error), the counted hits stay. A limit may so count a request that
   * was never served; it never admits one too many.
   */
  async consumeWithin(trx: Transaction<Database>, limits: RateLimitCheck[], now: number): Promise<RateLimitOutcome> {
    if (limits.length === 0) return { allowed: true };
    if (this.externalLimiter) return this.externalLimiter.consumeRateLimits(limits, now);
    if (this.dialect === 'postgres') return this.allowedAfter(limits, await pgHot.consumeLimits(trx, limits, now), now);
    return this.sqlite().consume(limits, now);
  }

  /** When the next hit on `check` will be allowed, without counting one. */
  async peek(check: RateLimitCheck, now: number, db: Kysely<Database> = this.db): Promise<number> {
    if (this.externalLimiter) return this.externalLimiter.peekRateLimit(check, now);
    const buckets = await this.rateBuckets.all(db, { key: check.key, since: now - check.windowMs });
    return nextAllowedAt(buckets.map((b) => ({ hits: Number(b.hits), lastAt: Number(b.last_at) })), check.limit, check.windowMs, now);
  }

  /**
   * The outcome of a request PostgreSQL counted in its own statement: when each limit's next hit
   * fits, from the windows that statement returned (no read of its own).
   */
  allowedAfter(limits: RateLimitCheck[], windows: pgHot.WindowBuckets, now: number): RateLimitOutcome {
    if (this.externalLimiter || limits.length === 0) return { allowed: true };
    const nextAllowed: Record<string, number> = {};
    for (const check of limits) nextAllowed[check.key] = nextAllowedAt(windows.get(check.key) ?? [], check.limit, check.windowMs, now);
    return { allowed: true, nextAllowedAt: nextAllowed };
  }

  /** With an external limiter (Redis), its verdict first; the database then counts no limits. */
  async consumeExternally(limits: RateLimitCheck[], now: number): Promise<RateLimitOutcome> {
    if (!this.externalLimiter || limits.length === 0) return { allowed: true };
    return this.externalLimiter.consumeRateLimits(limits, now);
  }

  /** Runs `write`; a PostgreSQL statement refused by a limit (and so undone) becomes that limit's outcome. */
  async refusable<T>(limits: RateLimitCheck[], now: number, write: () => Promise<T>): Promise<T | RateLimitOutcome> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof RateLimitRefusal) return this.refusalOutcome(limits, now);
      throw err;
    }
  }

  /** Which limit is full and when it frees a slot, read after a refusal (the refused request counted nothing). */
  async refusalOutcome(limits: RateLimitCheck[], now: number): Promise<RateLimitOutcome & { allowed: false }> {
    for (const check of limits) {
      const buckets = await this.rateBuckets.all(this.db, { key: check.key, since: now - check.windowMs });
      const refused = windowRefusal(check, buckets.map((b) => ({ hits: Number(b.hits), lastAt: Number(b.last_at) })), now);
      if (refused) return refused;
    }
    // Slots freed between the refusal and this read: the next attempt may well fit.
    return { allowed: false, key: limits[0]?.key ?? '', retryAfterMs: 1000 };
  }
}
