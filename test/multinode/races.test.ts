// Three nodes on one PostgreSQL, limits counted in the database (row locks on each key's bucket): the race gates hold
// across nodes, over several trials, and every acknowledged send is delivered once.
import { describe } from 'node:test';
import { skipUnlessPostgres } from '../support/postgres.js';
import { describeRaces } from './race-scenarios.js';

const skip = await skipUnlessPostgres();

describe('three nodes on one PostgreSQL', { skip }, () => {
  describeRaces('race gates across nodes, limits in PostgreSQL', { trials: 5, limitsIn: 'database', label: 'races' });
});
