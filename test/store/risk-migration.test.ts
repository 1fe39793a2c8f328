// Applications that existed before the risk score keep sending: migration 0030_risk puts them in
// shadow mode (scored and recorded, never refused), while applications created afterwards start in
// enforce mode.
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
