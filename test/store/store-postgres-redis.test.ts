// The store conformance suite, unchanged, on PostgreSQL with the rate limits counted in Redis
// (TWOFA_REDIS_URL): the limits behave the same wherever they are counted.
import { randomUUID } from 'node:crypto';
import { after, describe } from 'node:test';
import { openStore } from '../../src/store/open-store.js';
import { RedisRateLimiter } from '../../src/store/redis/redis-rate-limiter.js';
import { createTestDatabase, deleteRedisKeys, skipUnlessPostgres, skipUnlessRedis, TEST_REDIS_URL, type TestDatabase } from '../support/postgres.js';
import { storeConformance } from './store-contract.js';

const skip = (await skipUnlessPostgres()) || (await skipUnlessRedis());
let database: TestDatabase | undefined;
let limiter: RedisRateLimiter | undefined;

describe('PostgreSQL with Redis rate limits', { skip }, () => {
  storeConformance('PostgreSQL + Redis limits', async () => {
    database = await createTestDatabase('store_redis');
    limiter = await RedisRateLimiter.open(TEST_REDIS_URL, { keyPrefix: `twofa-test:${randomUUID()}:` });
    return openStore(database.url, { rateLimiter: limiter });
  });
});

after(async () => {
  await limiter?.close();
  if (limiter) await deleteRedisKeys(limiter.keyPrefix);
  await database?.drop();
});
