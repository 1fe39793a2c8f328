// The same races with TWOFA_REDIS_URL set: the limits are counted in Redis (one Lua script per
// request), attempts and verifications still in PostgreSQL.
import { describe } from 'node:test';
import { skipUnlessPostgres, skipUnlessRedis, TEST_REDIS_URL } from '../support/postgres.js';
import { describeRaces } from './race-scenarios.js';

const skip = (await skipUnlessPostgres()) || (await skipUnlessRedis());

describe('three nodes on one PostgreSQL, limits in Redis', { skip }, () => {
  describeRaces('race gates across nodes, limits in Redis', { trials: 2, limitsIn: 'redis', label: 'races_redis', env: { TWOFA_REDIS_URL: TEST_REDIS_URL } });
});
