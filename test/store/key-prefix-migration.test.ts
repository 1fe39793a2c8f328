// Keys stored before prefixes were shortened keep no more of themselves on record than a new key
// would: the migration cuts generated keys' prefixes to 11 characters and those of keys given in
// TWOFA_BOOTSTRAP_API_KEY (once allowed down to 16 characters) to 4.
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { migrateUpTo } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/open-store.js';
import { openSqlite } from '../../src/store/sqlite/open-sqlite.js';

const T0 = 1_800_000_000_000;

describe('migration 0008_short_key_prefixes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-key-prefix-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('shortens stored prefixes of older keys', async () => {
    const file = path.join(dir, 'twofa.db');
    // A database as the release before the migration left it: its schema, and keys with long prefixes.
    const older = openSqlite(file);
    await migrateUpTo(older.db as unknown as Kysely<unknown>, 'sqlite', '0007_audit_heads');
    await older.db.insertInto('accounts').values({ id: 'acct-1', name: 'default', created_at: T0 }).execute();
    const old = [
      { id: 'generated', key_prefix: 'tfa_AbCdEfGh', label: 'first start' },
      { id: 'bootstrap', key_prefix: 'short-key-01', label: 'TWOFA_BOOTSTRAP_API_KEY' },
      { id: 'already-short', key_prefix: 'tfa_AbC', label: null },
    ];
    for (const k of old) {
      await older.db.insertInto('api_keys').values({ ...k, account_id: 'acct-1', key_hash: `hash-${k.id}`, scopes: '2fa:manage', created_at: T0, revoked_at: null }).execute();
    }
    await older.close();

    const migrated = await openStore(`sqlite:${file}`);
    try {
      const prefixes = Object.fromEntries((await migrated.listApiKeys()).map((k) => [k.id, k.keyPrefix]));
      assert.deepEqual(prefixes, { generated: 'tfa_AbCdEfG', bootstrap: 'shor', 'already-short': 'tfa_AbC' });
    } finally {
      await migrated.close();
    }
  });
});
