// Keys stored before prefixes were shortened keep no more of themselves on record than a new key
// would: the migration cuts generated keys' prefixes to 11 characters and those of keys given in
// TWOFA_BOOTSTRAP_API_KEY (once allowed down to 16 characters) to 4.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { openStore } from '../../src/store/open-store.js';

const T0 = 1_800_000_000_000;

describe('migration 0008_short_key_prefixes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-key-prefix-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('shortens stored prefixes of older keys', async () => {
    const file = path.join(dir, 'twofa.db');
    const store = await openStore(`sqlite:${file}`);
    const account = await store.findOrCreateAccount('default', 'acct-1', T0);
    const old = [
      { id: 'generated', keyPrefix: 'tfa_AbCdEfGh', label: 'first start' },
      { id: 'bootstrap', keyPrefix: 'short-key-01', label: 'TWOFA_BOOTSTRAP_API_KEY' },
      { id: 'already-short', keyPrefix: 'tfa_AbC', label: null },
    ];
    for (const k of old) await store.insertApiKey({ ...k, accountId: account.id, keyHash: `hash-${k.id}`, scopes: ['2fa:manage'], createdAt: T0 });
    await store.close();

    // As a database written before the migration existed: the rows above, the migration not yet applied.
    const db = new Database(file);
    db.prepare('delete from twofa_migrations where name = ?').run('0008_short_key_prefixes');
    db.close();

    const migrated = await openStore(`sqlite:${file}`);
    try {
      const prefixes = Object.fromEntries((await migrated.listApiKeys()).map((k) => [k.id, k.keyPrefix]));
      assert.deepEqual(prefixes, { generated: 'tfa_AbCdEfG', bootstrap: 'shor', 'already-short': 'tfa_AbC' });
    } finally {
      await migrated.close();
    }
  });
});
