// What only PostgreSQL does, proved on a real server with several pools standing for several nodes:
// concurrent starts migrate once, outbox claims never hand one message to two nodes (FOR UPDATE SKIP
// LOCKED) and leases pass on, rate limits hold across pools (advisory locks), NOTIFY wakes listeners
// that reconnect after a drop, int8 arrives as a number, and lost connections never crash the process.
import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import { auditEntryText, type AuditSeal } from '../../src/store/audit-store.js';
import type { KyselyStore } from '../../src/store/kysely-store.js';
import { migrateToLatest } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/open-store.js';
import { openPostgres } from '../../src/store/postgres/open-postgres.js';
import type { NewPin } from '../../src/store/store.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';

const skip = await skipUnlessPostgres();
const keyring = new PinKeyring('postgres-specifics-secret-0123456789-abcdef');
const T0 = 1_800_000_000_000;

function newPin(withOutbox = true, destination = '41793026727'): NewPin {
  const id = randomUUID().replace(/-/g, '').toUpperCase();
  return {
    pin: {
      id, accountId: 'acct', applicationId: 'app', messageId: 'msg', channel: 'sms', destination,
      pinHash: keyring.hashPin(id, '123456'), pinCiphertext: keyring.encryptPin(id, '123456'), attemptsLeft: 3,
      allowMultipleVerifications: false, createdAt: T0, expiresAt: T0 + 3_600_000, deliveryStatus: 'queued',
    },
    ...(withOutbox ? { outbox: { id: randomUUID(), request: { placeholders: {} } } } : {}),
  };
}

function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const check = () => {
      if (condition()) return resolve();
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(check, 10);
    };
    check();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PostgreSQL specifics', { skip }, () => {
  const databases: TestDatabase[] = [];
  const stores: KyselyStore[] = [];

  async function freshDatabase(label: string): Promise<TestDatabase> {
    const database = await createTestDatabase(label);
    databases.push(database);
    return database;
  }

  async function nodes(database: TestDatabase, count: number): Promise<KyselyStore[]> {
    const opened = await Promise.all(Array.from({ length: count }, () => openStore(database.url, { postgres: { poolSize: 5 } })));
    stores.push(...opened);
    return opened;
  }

  let shared: TestDatabase;
  before(async () => {
    shared = await freshDatabase('specifics');
  });

  after(async () => {
    await Promise.all(stores.map((s) => s.close().catch(() => undefined)));
    await Promise.all(databases.map((d) => d.drop()));
  });

  it('three nodes starting at once on a fresh database migrate it once', async () => {
    const database = await freshDatabase('migrate');
    const pools = Array.from({ length: 3 }, () => openPostgres(database.url, { poolSize: 3 }));
    try {
      const applied = await Promise.all(pools.map((p) => migrateToLatest(p.db as unknown as Kysely<unknown>, 'postgres')));
      const nonEmpty = applied.filter((names) => names.length > 0);
      assert.equal(nonEmpty.length, 1, `exactly one node applied migrations: ${JSON.stringify(applied)}`);
      const rows = await database.query<{ name: string }>('select name from twofa_migrations order by name');
      assert.deepEqual(rows.rows.map((r) => r.name), nonEmpty[0]);
      // And three full openStore calls on another fresh database (migrations included) all succeed.
      const other = await freshDatabase('open3');
      const opened = await nodes(other, 3);
      assert.equal(opened.length, 3);
      const again = await other.query<{ n: string }>('select count(*) as n from twofa_migrations');
      assert.equal(Number(again.rows[0]?.n), nonEmpty[0]?.length);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });

  it('returns int8 as numbers on its own pool, leaving pg\'s global parser alone', async () => {
    const [store] = await nodes(shared, 1);
    const { rows } = await sql<{ big: unknown; n: unknown }>`select ${Number.MAX_SAFE_INTEGER}::bigint as big, count(*) as n from pg_class`.execute(store!.db);
    assert.equal(rows[0]?.big, Number.MAX_SAFE_INTEGER);
    assert.equal(typeof rows[0]?.n, 'number');
    await assert.rejects(sql`select ${'9007199254740993'}::bigint as big`.execute(store!.db), /beyond the safe integer range/);
    const client = new pg.Client({ connectionString: shared.url });
    await client.connect();
    try {
      const raw = await client.query('select 1::bigint as one');
      assert.equal(raw.rows[0].one, '1', 'a plain pg client still gets int8 as a string');
    } finally {
      await client.end();
    }
  });

  it('three nodes appending to one audit chain at once, each after the head it last wrote, leave one unbroken chain', async () => {
    const database = await freshDatabase('audit_chain');
    const appenders = await nodes(database, 3);
    const seal = (e: Parameters<AuditSeal>[0]) => keyring.sealAudit(auditEntryText(e));
    // Rounds of concurrent appends: from the second on, each node's guess of the head is stale
    // whenever another node appended since its own last write.
    for (let round = 0; round < 5; round++) {
      await Promise.all(appenders.flatMap((store, n) => Array.from({ length: 4 }, (_, i) =>
        store.audit.append({ accountId: 'chain', at: T0 + round, event: `e${round}-${n}-${i}` }, seal))));
    }
    const entries = await appenders[0]!.audit.list('chain', {}, 1000);
    assert.equal(entries.length, 60);
    entries.forEach((entry, i) => {
      assert.equal(entry.seq, i + 1);
      assert.equal(entry.prevHash, i === 0 ? '' : entries[i - 1]!.hash);
      const { hash, ...unsealed } = entry;
      assert.ok(keyring.checkAuditSeal(hash, auditEntryText(unsealed)));
    });
  });

  it('three nodes claiming one outbox concurrently never claim a message twice, and claim every one', async () => {
    // The tests share one database from here on (each makes a database in a second or so); this one
    // runs first on it, so the outbox holds only its own messages.
    const [a, b, c] = await nodes(shared, 3);
    const ids = new Set<string>();
    for (let i = 0; i < 300; i += 30) {
      const batch = Array.from({ length: 30 }, () => newPin());
      await Promise.all(batch.map((p) => a!.createPin(p, [], T0)));
      for (const p of batch) ids.add(p.outbox!.id);
    }
    const claimedBy = new Map<string, number>();
    const duplicates: string[] = [];
    await Promise.all([a!, b!, c!].flatMap((store, node) => Array.from({ length: 4 }, async () => {
      for (;;) {
        const claimed = await store.claimOutbox(T0 + 1, T0 + 60_000, 7);
        if (claimed.length === 0) return;
        for (const item of claimed) {
          if (claimedBy.has(item.id)) duplicates.push(item.id);
          claimedBy.set(item.id, node);
        }
      }
    })));
    assert.deepEqual(duplicates, []);
    assert.equal(claimedBy.size, 300);
    assert.deepEqual([...claimedBy.keys()].sort(), [...ids].sort());
    const perNode = [0, 1, 2].map((n) => [...claimedBy.values()].filter((v) => v === n).length);
    assert.ok(perNode.filter((n) => n > 0).length >= 2, `the claims were spread over the nodes: ${perNode.join(', ')}`);

    // A node that dies keeps its lease until it runs out; then exactly one other node takes each message over.
    assert.equal((await b!.claimOutbox(T0 + 59_999, T0 + 120_000, 1000)).length, 0, 'leased messages stay with their node');
    const takenOver = await Promise.all([b!, c!].map((s) => s.claimOutbox(T0 + 60_000, T0 + 120_000, 1000)));
    const overIds = takenOver.flat().map((m) => m.id);
    assert.equal(overIds.length, 300);
    assert.equal(new Set(overIds).size, 300);
    assert.ok(takenOver.flat().every((m) => m.attempts === 2), 'a take-over counts as a second attempt');
  });

  it('rate limits hold across nodes: 60 concurrent requests on 3 pools admit exactly the limit, and crossed keys do not deadlock', async () => {
    const stores3 = await nodes(shared, 3);
    const key = `race:${randomUUID()}`;
    const outcomes = await Promise.all(Array.from({ length: 60 }, (_, i) => stores3[i % 3]!.consumeRateLimits([{ key, limit: 7, windowMs: 60_000 }], T0)));
    assert.equal(outcomes.filter((o) => o.allowed).length, 7);

    // Two keys taken in opposite orders by concurrent requests: locks are taken in key order, so no deadlock.
    const x = `x:${randomUUID()}`;
    const y = `y:${randomUUID()}`;
    const crossed = await Promise.all(Array.from({ length: 40 }, (_, i) => stores3[i % 3]!.consumeRateLimits(
      i % 2 === 0 ? [{ key: x, limit: 10, windowMs: 60_000 }, { key: y, limit: 1000, windowMs: 60_000 }] : [{ key: y, limit: 1000, windowMs: 60_000 }, { key: x, limit: 10, windowMs: 60_000 }],
      T0,
    )));
    assert.equal(crossed.filter((o) => o.allowed).length, 10);

    // A send's limits are consumed in the send's transaction: concurrent sends to one number admit exactly the limit.
    const destination = `4179${randomInt(10_000_000).toString().padStart(7, '0')}`;
    const sends = await Promise.all(Array.from({ length: 45 }, (_, i) => stores3[i % 3]!.createPin(
      newPin(true, destination), [{ key: `send:to:app:${destination}`, limit: 5, windowMs: 86_400_000 }], T0,
    )));
    assert.equal(sends.filter((o) => o.allowed).length, 5);
    const written = await shared.query<{ n: string }>('select count(*) as n from pins where destination = $1', [destination]);
    assert.equal(Number(written.rows[0]?.n), 5, 'a refused send writes nothing');
  });

  it('a committed send notifies every listening node; a rolled-back one does not; listeners come back after their connection is cut', async () => {
    const database = shared;
    const [writer, listenerNode] = await nodes(database, 2);
    let wakes = 0;
    const subscription = listenerNode!.listenForQueuedMessages(() => { wakes += 1; });
    try {
      await waitFor(() => wakes >= 1, 5000, 'the listener to connect (it wakes once when it does)');
      const connected = wakes;

      await writer!.createPin(newPin(false), [], T0);
      await writer!.createPin(newPin(true), [{ key: `full:${randomUUID()}`, limit: 0, windowMs: 60_000 }], T0);
      await assert.rejects(writer!.db.transaction().execute(async (trx) => {
        await sql`select pg_notify('twofa_outbox', '')`.execute(trx);
        throw new Error('roll back');
      }));
      await sleep(300);
      assert.equal(wakes, connected, 'no notification without a committed outbox row');

      await writer!.createPin(newPin(true), [], T0);
      await waitFor(() => wakes === connected + 1, 5000, 'the notification of a queued message');
      await writer!.queueResend((await (async () => {
        const p = newPin(false);
        await writer!.createPin(p, [], T0);
        return p.pin.id;
      })()), 'sms', { id: randomUUID(), request: { placeholders: {} } }, [], T0 + 1);
      await waitFor(() => wakes === connected + 2, 5000, 'the notification of a queued resend');

      // A server restart or failover cuts every connection, the LISTEN one included: it comes back by itself.
      const beforeCut = wakes;
      assert.ok((await database.terminateConnections()) >= 1);
      await waitFor(() => wakes >= beforeCut + 1, 10_000, 'the listener to reconnect');
      const reconnected = wakes;
      await writer!.createPin(newPin(true), [], T0).catch(() => writer!.createPin(newPin(true), [], T0));
      await waitFor(() => wakes >= reconnected + 1, 5000, 'a notification after the reconnect');
    } finally {
      await subscription.close();
    }
  });

  it('survives connections cut under it, idle or in a transaction, and serves again by itself', async () => {
    const database = shared;
    const [store] = await nodes(database, 1);
    // Fill the pool with idle connections, then cut them all.
    await Promise.all(Array.from({ length: 5 }, () => store!.ping()));
    await database.terminateConnections();
    await sleep(100);
    // A connection cut while checked out between two statements of a transaction (no query running).
    await assert.rejects(store!.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      await database.terminateConnections();
      await sleep(200);
      await sql`select 1`.execute(trx);
    }));
    // The pool opens new connections: within a few tries everything works again.
    let ok = false;
    for (let i = 0; i < 20 && !ok; i += 1) {
      ok = await store!.ping().then(() => true, () => false);
      if (!ok) await sleep(100);
    }
    assert.ok(ok, 'the store answers again');
    assert.deepEqual(await store!.createPin(newPin(), [], T0), { allowed: true });
  });
});
