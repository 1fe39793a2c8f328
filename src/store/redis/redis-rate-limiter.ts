// Rate limits counted in Redis (TWOFA_REDIS_URL), for operators who want the counters off the
// database. One Lua script runs the store's sliding-window bucket algorithm atomically across all the
// keys of a request (Redis runs a script alone): check every limit, and only if all allow it, count one
// hit on each. A refused request consumes nothing, and Retry-After is computed the same way.
//
// The trade-off against the database limiter: the hits are counted before the PIN is written, in a
// different system, so a send whose database write then fails keeps its counted hit. A limit may so
// count a request that was never served; it never admits one too many.
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { RateLimitCheck, RateLimitOutcome } from '../store.js';
import { bucketStartOf, nextAllowedAt, type ExternalRateLimiter } from '../rate-limiter.js';

/**
 * KEYS[i]: the hash of limit i, one field per bucket (its start), valued "hits:lastAt:expiresAt".
 * ARGV[1]: now (epoch ms); then per limit i: ARGV[3i-1] limit, ARGV[3i] windowMs, ARGV[3i+1] bucket start.
 * Returns {0, 0, wait_1, ..., wait_n} when counted (wait_i: ms until limit i admits the next hit, 0 while
 * there is room), {i, retryAfterMs} when limit i refuses.
 * A bucket counts while its newest hit is inside the window (as in the database); a bucket past the
 * window it was written for is deleted on the way, and the whole hash expires once idle for a window.
 */
const CONSUME_SCRIPT = `
local now = tonumber(ARGV[1])
-- ms until a window of buckets ({lastAt, hits}) holding total >= limit admits one more hit (rate-limiter.ts retryAfterMs).
local function wait_for_room(buckets, total, limit, window)
  table.sort(buckets, function(a, b) return a[1] < b[1] end)
  local retryAt = now + window
  for _, b in ipairs(buckets) do
    total = total - b[2]
    if total < limit then
      retryAt = b[1] + window
      break
    end
  end
  return math.max(1, retryAt - now)
end
local read = {}
for i = 1, #KEYS do
  local limit = tonumber(ARGV[3 * i - 1])
  local window = tonumber(ARGV[3 * i])
  local fields = redis.call('HGETALL', KEYS[i])
  local buckets = {}
  read[i] = buckets
  local total = 0
  for j = 1, #fields, 2 do
    local hits, lastAt, expiresAt = string.match(fields[j + 1], '^(%d+):(%d+):(%d+)$')
    hits, lastAt, expiresAt = tonumber(hits), tonumber(lastAt), tonumber(expiresAt)
    if expiresAt <= now then
      redis.call('HDEL', KEYS[i], fields[j])
    elseif lastAt > now - window then
      total = total + hits
      buckets[#buckets + 1] = { lastAt, hits }
    end
  end
  if total >= limit then return { i, wait_for_room(buckets, total, limit, window) } end
end
local result = { 0, 0 }
for i = 1, #KEYS do
  local limit = tonumber(ARGV[3 * i - 1])
  local window = tonumber(ARGV[3 * i])
  local field = ARGV[3 * i + 1]
  local current = redis.call('HGET', KEYS[i], field)
  local hits = 1
  if current then hits = tonumber(string.match(current, '^(%d+):')) + 1 end
  redis.call('HSET', KEYS[i], field, string.format('%.0f:%.0f:%.0f', hits, now, now + window))
  if redis.call('PTTL', KEYS[i]) < window then redis.call('PEXPIRE', KEYS[i], window) end
  -- When the next hit fits, this one counted (rate-limiter.ts nextAllowedAfterHit): 0 while there is room.
  local start = tonumber(field)
  local after = {}
  local total = 1
  local inCurrent = 1
  for _, b in ipairs(read[i]) do
    total = total + b[2]
    if b[1] >= start then inCurrent = inCurrent + b[2] else after[#after + 1] = b end
  end
  after[#after + 1] = { now, inCurrent }
  result[#result + 1] = total < limit and 0 or wait_for_room(after, total, limit, window)
end
return result
`;

interface ConsumeCommand {
  twofaConsume(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<number[]>;
}

export interface RedisRateLimiterOptions {
  /** Prepended to every key (tests use their own, so runs do not meet). */
  keyPrefix?: string;
  /** A command that takes longer fails (the request is answered 500) rather than hang. */
  commandTimeoutMs?: number;
  logger?: Logger | undefined;
}

export const DEFAULT_KEY_PREFIX = 'twofa:rl:';

export class RedisRateLimiter implements ExternalRateLimiter {
  private readonly client: Redis & ConsumeCommand;
  readonly keyPrefix: string;
  private outage = false;
  private closing = false;

  private constructor(url: string, options: RedisRateLimiterOptions) {
    const logger = options.logger;
    this.keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    const redisOptions: RedisOptions = {
      lazyConnect: true,
      // While Redis is unreachable, commands fail at once (500, /readyz 503) instead of queueing.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: options.commandTimeoutMs ?? 2000,
      connectTimeout: 5000,
      // Reconnect for as long as the node runs.
      retryStrategy: (times) => Math.min(100 * times, 2000),
    };
    this.client = new Redis(url, redisOptions) as Redis & ConsumeCommand;
    this.client.defineCommand('twofaConsume', { lua: CONSUME_SCRIPT });
    // Without a listener ioredis prints every connection error; log the start of an outage only.
    const lost = (err: Error | undefined) => {
      if (this.outage || this.closing) return;
      this.outage = true;
      logger?.warn({ err: err?.message ?? 'connection closed' }, 'Redis unreachable: rate-limited requests fail until it is back; reconnecting');
    };
    this.client.on('error', (err: Error) => lost(err));
    this.client.on('close', () => lost(undefined));
    this.client.on('ready', () => {
      if (this.outage) logger?.info('Redis reachable again');
      this.outage = false;
    });
  }

  /** Connects (a Redis that cannot be reached at start is an error, like the database). */
  static async open(url: string, options: RedisRateLimiterOptions = {}): Promise<RedisRateLimiter> {
    const limiter = new RedisRateLimiter(url, options);
    try {
      await limiter.client.connect();
    } catch (err) {
      limiter.client.disconnect();
      throw new Error(`TWOFA_REDIS_URL: cannot connect to Redis: ${(err as Error).message}`);
    }
    return limiter;
  }

  async consumeRateLimits(limits: RateLimitCheck[], now: number): Promise<RateLimitOutcome> {
    if (limits.length === 0) return { allowed: true };
    const keys = limits.map((l) => `${this.keyPrefix}${l.key}`);
    const args: number[] = [now];
    for (const l of limits) args.push(l.limit, l.windowMs, bucketStartOf(now, l.windowMs));
    const [refusedIndex = 0, retryAfterMs = 0, ...waits] = await this.client.twofaConsume(keys.length, ...keys, ...args);
    if (refusedIndex === 0) {
      const nextAllowedAt: Record<string, number> = {};
      for (const [i, l] of limits.entries()) nextAllowedAt[l.key] = now + Number(waits[i] ?? 0);
      return { allowed: true, nextAllowedAt };
    }
    const refused = limits[refusedIndex - 1];
    if (!refused) throw new Error(`Redis rate-limit script answered an unknown limit index ${refusedIndex}`);
    return { allowed: false, key: refused.key, retryAfterMs: Number(retryAfterMs) };
  }

  async peekRateLimit(check: RateLimitCheck, now: number): Promise<number> {
    const fields = await this.client.hgetall(`${this.keyPrefix}${check.key}`);
    const buckets: { hits: number; lastAt: number }[] = [];
    for (const value of Object.values(fields)) {
      const [hits, lastAt, expiresAt] = value.split(':').map(Number);
      if (hits !== undefined && lastAt !== undefined && expiresAt !== undefined && expiresAt > now && lastAt > now - check.windowMs) buckets.push({ hits, lastAt });
    }
    return nextAllowedAt(buckets.sort((a, b) => a.lastAt - b.lastAt), check.limit, check.windowMs, now);
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }

  async close(): Promise<void> {
    this.closing = true;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}
