// The SQLite store keeps configuration in memory (src/store/config-cache.ts). What a user relies on:
// a change made by another process on the same file (`twofa keys revoke`, `twofa apps ...` beside a
// running server) or by this process is seen by the very next read, never a stale copy.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_CONFIGURATION } from '../../src/domain/application-rules.js';
import type { KyselyStore } from '../../src/store/kysely-store.js';
import { openStore } from '../../src/store/open-store.js';
import type { ApplicationRecord } from '../../src/store/store.js';

const T0 = 1_800_000_000_000;

describe('configuration cache of the SQLite store', () => {
  let dir: string;
  let server: KyselyStore;
  let cli: KyselyStore;
  let accountId: string;
  let app: ApplicationRecord;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-config-cache-'));
    const file = `sqlite:${path.join(dir, 'twofa.db')}`;
    server = await openStore(file);
    cli = await openStore(file, { migrate: false });
    accountId = (await server.findOrCreateAccount('acct', randomUUID(), T0)).id;
    app = { id: 'APP1', accountId, name: 'app', enabled: true, configuration: { ...DEFAULT_CONFIGURATION }, createdAt: T0, updatedAt: T0 };
    await server.insertApplication(app);
  });
  after(async () => {
    await cli.close();
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sees a key revoked by another process at the next lookup', async () => {
    await server.insertApiKey({ id: 'k1', accountId, keyHash: 'hash-k1', keyPrefix: 'pfx-k1', scopes: ['2fa:manage'], label: null, createdAt: T0 });
    assert.equal((await server.findApiKeyByHash('hash-k1'))?.revokedAt, null);
    assert.equal((await server.findApiKeyByHash('hash-k1'))?.revokedAt, null, 'read twice: now from the cache');
    assert.equal(await cli.revokeApiKey('k1', T0 + 1), true);
    assert.equal((await server.findApiKeyByHash('hash-k1'))?.revokedAt, T0 + 1);
  });

  it('sees a key created by another process after a lookup found none', async () => {
    assert.equal(await server.findApiKeyByHash('hash-k2'), undefined);
    await cli.insertApiKey({ id: 'k2', accountId, keyHash: 'hash-k2', keyPrefix: 'pfx-k2', scopes: ['2fa:manage'], label: null, createdAt: T0 });
    assert.equal((await server.findApiKeyByHash('hash-k2'))?.id, 'k2');
  });

  it('sees application changes made by this process and by another', async () => {
    assert.equal((await server.getApplication(accountId, app.id))?.name, 'app');
    await server.updateApplication({ ...app, name: 'renamed here' });
    assert.equal((await server.getApplication(accountId, app.id))?.name, 'renamed here');
    await cli.updateApplication({ ...app, name: 'renamed elsewhere', configuration: { ...app.configuration, pinAttempts: 4 } });
    const seen = await server.getApplication(accountId, app.id);
    assert.equal(seen?.name, 'renamed elsewhere');
    assert.equal(seen?.configuration.pinAttempts, 4);
  });

  it('sees security settings and webhook subscriptions changed by another process', async () => {
    assert.equal(await server.security.getSettings(app.id), undefined);
    await cli.security.putSettings(accountId, app.id, '{"blockedCountries":["XX"]}', T0);
    assert.equal((await server.security.getSettings(app.id))?.settings, '{"blockedCountries":["XX"]}');
  });

  it('hands out records that cannot be changed in place (a change would leak to every later reader)', async () => {
    const cached = await server.getApplication(accountId, app.id);
    assert.ok(cached);
    assert.throws(() => { (cached.configuration as { pinAttempts: number }).pinAttempts = 99; }, TypeError);
    assert.equal((await server.getApplication(accountId, app.id))?.configuration.pinAttempts, 4);
  });
});
