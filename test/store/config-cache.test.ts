// Both stores keep configuration in memory (src/store/config-cache.ts). What a user relies on: a
// change made by another process on the same SQLite file (`twofa keys revoke`, `twofa apps ...` beside
// a running server), by another node on the same PostgreSQL database, or by this process is seen by
// the very next request, never a stale copy.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_CONFIGURATION } from '../../src/domain/application-rules.js';
import { KyselyStore } from '../../src/store/kysely-store.js';
import { openStore } from '../../src/store/open-store.js';
import { ConfigWriteWatch, PostgresConfigVersion } from '../../src/store/postgres/config-version.js';
import { openPostgres } from '../../src/store/postgres/open-postgres.js';
import type { ApplicationRecord } from '../../src/store/store.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';

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

  it('queues the webhook events of a subscription made by another process with the next delivery recorded', async () => {
    const delivered = async (now: number) => {
      const id = randomUUID().replace(/-/g, '').toUpperCase();
      await server.createPin({
        pin: {
          id, accountId, applicationId: app.id, messageId: 'MSG', channel: 'sms', destination: '41793026727', pinHash: 'h', pinCiphertext: 'c',
          attemptsLeft: 3, allowMultipleVerifications: false, createdAt: now, expiresAt: now + 60_000, deliveryStatus: 'queued',
        },
        outbox: { id: randomUUID(), request: { placeholders: {} } },
      }, [], now);
      const message = (await server.claimOutbox(now, now + 1000, 100)).find((m) => m.pinId === id)!;
      await server.completeOutbox(message.id, id, now, { transport: 'smpp' });
      return (await server.events.claim(now, now + 1000, 100)).filter((e) => e.pinId === id).map((e) => e.type);
    };
    assert.deepEqual(await delivered(T0), [], 'no subscription yet');
    await cli.events.insertSubscription({ id: randomUUID(), accountId, url: 'https://hooks.example.com/e', events: ['pin.sent'], secretCiphertext: 'k:x', enabled: true, createdAt: T0, updatedAt: T0 });
    // The next turn of the event loop: another process's commit is looked for once per turn.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(await delivered(T0 + 1), ['pin.sent']);
  });

  it('hands out records that cannot be changed in place (a change would leak to every later reader)', async () => {
    const cached = await server.getApplication(accountId, app.id);
    assert.ok(cached);
    assert.throws(() => { (cached.configuration as { pinAttempts: number }).pinAttempts = 99; }, TypeError);
    assert.equal((await server.getApplication(accountId, app.id))?.configuration.pinAttempts, 4);
  });
});

describe('configuration cache of the PostgreSQL store, two nodes on one database', { skip: await skipUnlessPostgres() }, () => {
  let database: TestDatabase;
  let nodeA: KyselyStore;
  let nodeB: KyselyStore;
  let accountId: string;
  let app: ApplicationRecord;
  const KEY = 'hash-pg-key';
  const OTHER_KEY = 'hash-pg-other';

  before(async () => {
    database = await createTestDatabase('config_cache');
    nodeB = await openStore(database.url);
    nodeA = deafNode(database.url);
    accountId = (await nodeA.findOrCreateAccount('acct', randomUUID(), T0)).id;
    app = { id: 'APP1', accountId, name: 'app', enabled: true, configuration: { ...DEFAULT_CONFIGURATION }, createdAt: T0, updatedAt: T0 };
    await nodeA.insertApplication(app);
    for (const [id, keyHash] of [['k1', KEY], ['k2', OTHER_KEY]] as const) {
      await nodeA.insertApiKey({ id, accountId, keyHash, keyPrefix: `pfx-${id}`, scopes: ['2fa:manage'], label: null, createdAt: T0 });
    }
  });
  after(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await database?.drop();
  });

  /**
   * A node whose notifications of configuration changes never arrive (the worst a slow or broken
   * LISTEN connection can do while it still looks connected): what it serves must not depend on them.
   */
  function deafNode(url: string): KyselyStore {
    const { db, close } = openPostgres(url);
    const versions = new PostgresConfigVersion();
    return new KyselyStore(db.withPlugin(new ConfigWriteWatch(() => versions.changed())), 'postgres', close, {
      postgresConfig: { versions, listen: () => (versions.setListening(true), { close: async () => undefined }) },
    });
  }

  /** What a request does first: its key is read, and with it the configuration counter. */
  const authenticate = (store: KyselyStore, keyHash = OTHER_KEY) => store.findApiKeyByHash(keyHash);

  it('refuses a key revoked on another node at the next request, with no notification awaited', async () => {
    assert.equal((await authenticate(nodeA, KEY))?.revokedAt, null);
    assert.equal(await nodeB.revokeApiKey('k1', T0 + 1), true);
    assert.equal((await authenticate(nodeA, KEY))?.revokedAt, T0 + 1);
  });

  it('serves an application changed on another node to the next request, cached or not', async () => {
    await authenticate(nodeA);
    assert.equal((await nodeA.getApplication(accountId, app.id))?.name, 'app');
    // The notification of the change may be slow or lost: nothing below waits for it.
    await nodeB.updateApplication({ ...app, name: 'renamed on B', configuration: { ...app.configuration, pinAttempts: 4 } });
    await authenticate(nodeA);
    const seen = await nodeA.getApplication(accountId, app.id);
    assert.equal(seen?.name, 'renamed on B');
    assert.equal(seen?.configuration.pinAttempts, 4);
  });

  it('sees its own changes at once, within the request that made them', async () => {
    await authenticate(nodeA);
    assert.equal((await nodeA.getApplication(accountId, app.id))?.name, 'renamed on B');
    await nodeA.updateApplication({ ...app, name: 'renamed on A' });
    assert.equal((await nodeA.getApplication(accountId, app.id))?.name, 'renamed on A');
    assert.equal(await nodeA.security.getSettings(app.id), undefined);
    await nodeA.security.putSettings(accountId, app.id, '{"blockedCountries":["XX"]}', T0);
    assert.equal((await nodeA.security.getSettings(app.id))?.settings, '{"blockedCountries":["XX"]}');
  });

  it('sees test numbers and security settings changed on another node at the next request', async () => {
    await authenticate(nodeA);
    assert.equal(await nodeA.testNumbers.find(accountId, '41790000001'), undefined);
    await nodeB.testNumbers.add({ id: 'TN1', accountId, destination: '41790000001', codeCiphertext: 'x', createdAt: T0 });
    await nodeB.security.putSettings(accountId, app.id, '{"blockedCountries":["YY"]}', T0 + 1);
    await authenticate(nodeA);
    assert.equal((await nodeA.testNumbers.find(accountId, '41790000001'))?.id, 'TN1');
    assert.equal((await nodeA.security.getSettings(app.id))?.settings, '{"blockedCountries":["YY"]}');
  });

  it('keeps reads from the cache between changes (no round trip per read)', async () => {
    await authenticate(nodeA);
    assert.ok(await cachedOn(nodeA), 'a second read of an unchanged application is served from memory');
    // nodeB's LISTEN connection opens on its cache's first use; until it is up every read goes to the database.
    await authenticate(nodeB);
    for (let i = 0; i < 100 && !(await cachedOn(nodeB)); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(await cachedOn(nodeB));
    // A change announced by NOTIFY reaches the worker's reads (no request, no key read) of a listening node.
    await nodeA.updateApplication({ ...app, name: 'announced' });
    for (let i = 0; i < 100 && (await nodeB.getApplication(accountId, app.id))?.name !== 'announced'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await nodeB.getApplication(accountId, app.id))?.name, 'announced');
  });

  /** Whether an application read twice is the same object (the cache hands out the entry it keeps). */
  async function cachedOn(store: KyselyStore): Promise<boolean> {
    const first = await store.getApplication(accountId, app.id);
    return first !== undefined && first === await store.getApplication(accountId, app.id);
  }
});
