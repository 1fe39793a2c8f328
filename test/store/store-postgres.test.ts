// The store conformance suite, unchanged, on PostgreSQL: a database of its own, dropped afterwards.
import { after, describe } from 'node:test';
import { openStore } from '../../src/store/open-store.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';
import { storeConformance } from './store-contract.js';

const skip = await skipUnlessPostgres();
let database: TestDatabase | undefined;

describe('PostgreSQL', { skip }, () => {
  storeConformance('PostgreSQL', async () => {
    database = await createTestDatabase('store');
    return openStore(database.url);
  });
});

after(async () => {
  await database?.drop();
});
