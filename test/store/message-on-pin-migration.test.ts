// Migration 0019 moves a PIN's waiting first message from its outbox row onto the PIN's row, on
// SQLite and PostgreSQL: the worker then claims it under the same delivery id and its history still
// reads `queued` once. Messages already done, and PINs with several messages, stay as they were.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { migrateToLatest, migrateUpTo } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/open-store.js';
import { kyselyOnPostgres, scratchSqlite } from '../support/migration-databases.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';

const T0 = 1_800_000_000_000;
const skip = await skipUnlessPostgres();

/** An 0018 database: P1 waiting for its only message, P2 delivered, P3 with a first message and a resend both waiting. */
async function seed(db: Kysely<unknown>): Promise<void> {
  for (const id of ['P1', 'P2', 'P3']) {
    await sql`insert into pins (id, account_id, application_id, message_id, channel, destination, pin_hash, pin_ciphertext, attempts_left, allow_multiple_verifications, created_at, expires_at, delivery_status, send_count, sent_at)
      values (${id}, 'acct', 'app', 'msg', 'sms', '41790000001', 'h', 'c', 3, 0, ${T0}, ${T0 + 600_000}, ${id === 'P2' ? 'sent' : 'queued'}, 1, ${id === 'P2' ? T0 + 5 : null})`.execute(db);
  }
  const message = (id: string, pinId: string, state: string, at: number) => sql`insert into outbox (id, pin_id, account_id, channel, request, state, attempts, next_attempt_at, lease_until, last_error, created_at, updated_at, transport, provider_message_id)
    values (${id}, ${pinId}, 'acct', 'sms', '{"placeholders":{"name":"Ann"}}', ${state}, ${state === 'done' ? 1 : 2}, ${at + 100}, 0, ${state === 'done' ? null : 'timeout'}, ${at}, ${at}, ${state === 'done' ? 'smpp' : null}, ${state === 'done' ? 'smsc-2' : null})`.execute(db);
  const event = (id: string, pinId: string, kind: string, at: number) => sql`insert into delivery_events (id, pin_id, account_id, at, event, channel, transport, provider_message_id, error)
    values (${id}, ${pinId}, 'acct', ${at}, ${kind}, 'sms', ${kind === 'sent' ? 'smpp' : null}, ${kind === 'sent' ? 'smsc-2' : null}, ${kind === 'retried' ? 'timeout' : null})`.execute(db);
  await message('m1', 'P1', 'pending', T0);
  await event('e1', 'P1', 'queued', T0);
  await event('e2', 'P1', 'retried', T0 + 1);
  await message('m2', 'P2', 'done', T0);
  await event('e3', 'P2', 'queued', T0);
  await event('e4', 'P2', 'sent', T0 + 5);
  await message('m3a', 'P3', 'pending', T0);
  await message('m3b', 'P3', 'pending', T0 + 2);
  await event('e5', 'P3', 'queued', T0);
  await event('e6', 'P3', 'queued', T0 + 2);
}

async function check(url: string, rows: <R>(text: string) => Promise<R[]>): Promise<void> {
  assert.deepEqual(await rows('select id from outbox order by id'), [{ id: 'm2' }, { id: 'm3a' }, { id: 'm3b' }], 'only the waiting only-message left its row');
  assert.deepEqual(await rows("select id from delivery_events where event = 'queued' order by id"), [{ id: 'e3' }, { id: 'e5' }, { id: 'e6' }]);
  const store = await openStore(url);
  try {
    const history = await store.listDeliveryEvents('acct', 'P1');
    assert.deepEqual(history.map((e) => [e.event, e.at]), [['queued', T0], ['retried', T0 + 1]]);
    assert.deepEqual((await store.listDeliveryEvents('acct', 'P2')).map((e) => e.event), ['queued', 'sent']);
    assert.deepEqual((await store.listDeliveryEvents('acct', 'P3')).map((e) => e.event), ['queued', 'queued']);
    const claimed = await store.claimOutbox(T0 + 1000, T0 + 60_000, 10);
    assert.deepEqual(claimed.map((c) => [c.id, c.pinId, c.attempts]).sort(), [['m1', 'P1', 3], ['m3a', 'P3', 3], ['m3b', 'P3', 3]]);
    assert.deepEqual(claimed.find((c) => c.id === 'm1')?.request, { placeholders: { name: 'Ann' } });
    await store.completeOutbox('m1', 'P1', T0 + 1001, { transport: 'smpp', providerMessageId: 'smsc-1' });
    assert.deepEqual((await store.listDeliveryEvents('acct', 'P1')).map((e) => e.event), ['queued', 'retried', 'sent']);
    assert.equal((await store.getPin('acct', 'P1'))?.deliveryStatus, 'sent');
    assert.equal(await store.countPendingOutbox(), 2, 'P3\'s two messages, leased, still wait');
  } finally {
    await store.close();
  }
}

describe('migration 0019: first messages onto their PINs', () => {
  it('on SQLite', async () => {
    const { db, sqlite, file, dispose } = scratchSqlite('0019');
    try {
      await migrateUpTo(db, 'sqlite', '0018_postgres_rate_limit_refusal');
      await seed(db);
      assert.ok((await migrateToLatest(db, 'sqlite')).includes('0019_message_on_pin'));
      await check(`sqlite:${file}`, async <R>(text: string) => sqlite.prepare(text).all() as R[]);
    } finally {
      await dispose();
    }
  });

  describe('on PostgreSQL', { skip }, () => {
    let database: TestDatabase | undefined;
    after(async () => { await database?.drop(); });
    it('moves the waiting message and keeps the rest', async () => {
      database = await createTestDatabase('migration_0019');
      const db = kyselyOnPostgres(database.url);
      try {
        await migrateUpTo(db, 'postgres', '0018_postgres_rate_limit_refusal');
        await seed(db);
        assert.ok((await migrateToLatest(db, 'postgres')).includes('0019_message_on_pin'));
      } finally {
        await db.destroy();
      }
      await check(database.url, async <R>(text: string) => (await database!.query(text)).rows as R[]);
    });
  });
});
