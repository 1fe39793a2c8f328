// Applications that existed before the risk score keep sending: migration 0030_risk puts them in
// shadow mode (scored and recorded, never refused), while applications created afterwards start in
// enforce mode. Migration 0037_risk_recent_hits moves SQLite's counters of the recent window out of
// risk_counters into the log they are rebuilt from: an upgrade forgets none of the last hour.
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { migrateUpTo } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/open-store.js';
import { openSqlite } from '../../src/store/sqlite/open-sqlite.js';
import type { KyselyStore } from '../../src/store/kysely-store.js';
import { getRiskSettings } from '../../src/service/risk.js';
import type { Principal, ServiceContext } from '../../src/service/context.js';

const T0 = 1_800_000_000_000;

const application = {
  id: 'OLDAPP', account_id: 'acct-1', name: 'before', enabled: 1, pin_attempts: 10, allow_multiple_pin_verifications: 1, pin_time_to_live: '15m',
  verify_pin_limit: '1/3s', send_pin_per_application_limit: '10000/1d', send_pin_per_phone_number_limit: '3/1d', created_at: T0, updated_at: T0,
};

describe('migration 0030_risk', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-risk-migration-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('puts applications that existed before it in shadow mode; new ones start in enforce', async () => {
    const file = path.join(dir, 'twofa.db');
    const older = openSqlite(file);
    await migrateUpTo(older.db as unknown as Kysely<unknown>, 'sqlite', '0028_prelude_settings');
    await older.db.insertInto('accounts').values({ id: 'acct-1', name: 'default', created_at: T0 }).execute();
    await older.db.insertInto('applications').values(application).execute();
    await older.close();

    const store = await openStore(`sqlite:${file}`);
    try {
      const ctx = { store, clock: () => T0 + 1000, } as unknown as ServiceContext;
      const principal: Principal = { accountId: 'acct-1', keyId: 'k', scopes: ['2fa:manage'] };
      const before = await getRiskSettings(ctx, principal, 'OLDAPP');
      assert.ok(before.ok);
      assert.equal(before.value.mode, 'shadow');
      // An application created once the migration ran has no risk settings row: the defaults.
      await (store as KyselyStore).db.insertInto('applications').values({ ...application, id: 'NEWAPP', name: 'after' }).execute();
      const after = await getRiskSettings(ctx, principal, 'NEWAPP');
      assert.ok(after.ok);
      assert.equal(after.value.mode, 'enforce');
      assert.equal(after.value.blockScore, 70);
    } finally {
      await store.close();
    }
  });
});

describe('migration 0037_risk_recent_hits (SQLite)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-risk-recent-migration-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('carries the last hour of the recent window\'s counters over, and leaves the others in risk_counters', async () => {
    const file = path.join(dir, 'twofa.db');
    const older = openSqlite(file);
    await migrateUpTo(older.db as unknown as Kysely<unknown>, 'sqlite', '0036_factors');
    const hour = 3_600_000;
    const bucket = T0 - (T0 % 300_000);
    await older.db.insertInto('risk_counters').values([
      { application_id: 'APP', counter: 'd:41791234567.0', bucket_start: bucket, hits: 1 },
      { application_id: 'APP', counter: 'd:4179123.4', bucket_start: bucket, hits: 3 },
      { application_id: 'APP', counter: 'addr:203.0.113.7', bucket_start: bucket - 300_000, hits: 2 },
      { application_id: 'APP', counter: 'pv:4179123', bucket_start: bucket, hits: 1 },
      // Past the hour: no longer read, so not carried over.
      { application_id: 'APP', counter: 'd:4179123.4', bucket_start: bucket - 2 * hour, hits: 5 },
      { application_id: 'APP', counter: 'as', bucket_start: T0 - (T0 % 7_200_000), hits: 9 },
    ]).execute();
    await older.close();

    const store = await openStore(`sqlite:${file}`);
    try {
      const reads = [
        { counter: 'd:41791234567.0', since: bucket - hour, recent: true }, { counter: 'd:4179123.4', since: bucket - 3 * hour, recent: true },
        { counter: 'addr:203.0.113.7', since: bucket - hour, recent: true }, { counter: 'pv:4179123', since: bucket - hour, recent: true },
        { counter: 'as', since: T0 - 86_400_000 },
      ];
      assert.deepEqual(Object.fromEntries(await store.risk.readCounters('APP', reads)), {
        'd:41791234567.0': 1, 'd:4179123.4': 3, 'addr:203.0.113.7': 2, 'pv:4179123': 1, as: 9,
      });
      const left = await (store as KyselyStore).db.selectFrom('risk_counters').select('counter').execute();
      assert.deepEqual(left.map((r) => r.counter), ['as']);
    } finally {
      await store.close();
    }
  });
});
