// The Redis rate limiter against a real Redis: the same answers as the database limiter (allowed, the
// refusing key, Retry-After) over a long random sequence, no concurrency past a limit, and an outage
// that fails requests at once rather than hanging them, then heals by itself.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../src/store/open-store.js';
import type { KyselyStore } from '../../src/store/kysely-store.js';
import { RedisRateLimiter } from '../../src/store/redis/redis-rate-limiter.js';
import type { RateLimitCheck } from '../../src/store/store.js';
import { freePort } from '../support/server-process.js';
import { deleteRedisKeys, skipUnlessRedis, TEST_REDIS_URL } from '../support/postgres.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

const skip = await skipUnlessRedis();
const T0 = 1_800_000_000_000;

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('Redis rate limiter', { skip }, () => {
  let limiter: RedisRateLimiter;
  let database: KyselyStore;
  before(async () => {
    limiter = await RedisRateLimiter.open(TEST_REDIS_URL, { keyPrefix: `twofa-test:${randomUUID()}:` });
    database = await openStore('sqlite::memory:');
  });
  after(async () => {
    await limiter?.close();
    await database?.close();
    if (limiter) await deleteRedisKeys(limiter.keyPrefix);
  });

  it('answers exactly as the database limiter over 600 random requests (allowed, refusing key, Retry-After, when each limit admits the next, peeks)', async () => {
    const random = prng(20_240_601);
    const run = randomUUID();
    const limits: RateLimitCheck[] = [
      { key: `${run}:a`, limit: 3, windowMs: 10_000 },
      { key: `${run}:b`, limit: 5, windowMs: 60_000 },
      { key: `${run}:c`, limit: 1, windowMs: 1_000 },
      { key: `${run}:d`, limit: 20, windowMs: 86_400_000 },
    ];
    let now = T0;
    const refusedKeys = new Set<string>();
    let allowed = 0;
    for (let i = 0; i < 600; i += 1) {
      now += Math.floor(random() * 1500);
      const chosen = limits.filter(() => random() < 0.5);
      const fromDatabase = await database.consumeRateLimits(chosen, now);
      const fromRedis = await limiter.consumeRateLimits(chosen, now);
      assert.deepEqual(fromRedis, fromDatabase, `request ${i} at +${now - T0} ms on ${chosen.map((c) => c.key.split(':')[1]).join(',')}`);
      if (i % 10 === 0) {
        for (const l of limits) assert.equal(await limiter.peekRateLimit(l, now), await database.peekRateLimit(l, now), `peek ${l.key.split(':')[1]} after request ${i}`);
      }
      if (!fromDatabase.allowed) refusedKeys.add(fromDatabase.key);
      else if (chosen.length > 0) allowed += 1;
    }
    // The sequence exercised both answers on every limit.
    assert.equal(refusedKeys.size, limits.length);
    assert.ok(allowed > 100, `${allowed} allowed`);
  });

  it('a refused request consumes nothing on its other keys', async () => {
    const full = { key: `full:${randomUUID()}`, limit: 1, windowMs: 60_000 };
    const other = { key: `other:${randomUUID()}`, limit: 2, windowMs: 60_000 };
    assert.equal((await limiter.consumeRateLimits([full], T0)).allowed, true);
    for (let i = 0; i < 5; i += 1) {
      const refused = await limiter.consumeRateLimits([other, full], T0 + 1000);
      assert.deepEqual(refused, { allowed: false, key: full.key, retryAfterMs: 59_000 });
    }
    assert.equal((await limiter.consumeRateLimits([other], T0 + 2000)).allowed, true);
    assert.equal((await limiter.consumeRateLimits([other], T0 + 2000)).allowed, true);
    assert.equal((await limiter.consumeRateLimits([other], T0 + 2000)).allowed, false);
  });

  it('lets no concurrency past a limit, across several connections (nodes)', async () => {
    const others = await Promise.all([1, 2].map(() => RedisRateLimiter.open(TEST_REDIS_URL, { keyPrefix: limiter.keyPrefix })));
    try {
      const nodes = [limiter, ...others];
      const key = `race:${randomUUID()}`;
      const outcomes = await Promise.all(Array.from({ length: 90 }, (_, i) => nodes[i % 3]!.consumeRateLimits([{ key, limit: 11, windowMs: 60_000 }], T0)));
      assert.equal(outcomes.filter((o) => o.allowed).length, 11);
    } finally {
      await Promise.all(others.map((o) => o.close()));
    }
  });

  it('refuses to start without Redis, naming TWOFA_REDIS_URL', async () => {
    await assert.rejects(RedisRateLimiter.open(`redis://127.0.0.1:${await freePort()}`), /TWOFA_REDIS_URL: cannot connect to Redis/);
  });

  it('fails requests at once while Redis is unreachable, and serves again when it is back', async () => {
    const target = new URL(TEST_REDIS_URL);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const viaProxy = await RedisRateLimiter.open(proxy.via(TEST_REDIS_URL), { keyPrefix: `twofa-test:${randomUUID()}:` });
    try {
      const check = [{ key: 'k', limit: 100, windowMs: 60_000 }];
      assert.equal((await viaProxy.consumeRateLimits(check, T0)).allowed, true);
      await proxy.pause();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      await assert.rejects(viaProxy.consumeRateLimits(check, T0));
      await assert.rejects(viaProxy.ping());
      assert.ok(Date.now() - started < 5000, `failed within ${Date.now() - started} ms`);
      await proxy.resume();
      let back = false;
      for (let i = 0; i < 50 && !back; i += 1) {
        back = await viaProxy.ping().then(() => true, () => false);
        if (!back) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(back, 'reconnected by itself');
      assert.equal((await viaProxy.consumeRateLimits(check, T0 + 1)).allowed, true);
    } finally {
      await viaProxy.close();
      await proxy.close();
    }
  });
});
