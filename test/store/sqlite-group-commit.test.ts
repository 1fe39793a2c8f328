// Group commit (src/store/sqlite/group-commit.ts): no query resolves before an fsync that started
// after its commit, concurrent commits share fsyncs, a failed fsync fails the queries waiting on it,
// and everything written is there after the database is opened again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, it, mock } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { openSqlite } from '../../src/store/sqlite/open-sqlite.js';
import { createAppAndTemplate, createHarness } from '../support/harness.js';

type FsyncCallback = (err: NodeJS.ErrnoException | null) => void;

function tempFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-group-commit-')), 'twofa.db');
}

async function createTable(file: string) {
  const { db, close } = openSqlite(file);
  await db.schema.createTable('t').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('v', 'text').execute();
  return { db: db as unknown as import('kysely').Kysely<{ t: { id: number; v: string } }>, close };
}

describe('SQLite group commit', () => {
  afterEach(() => mock.restoreAll());

  it('answers a write only after an fsync of the WAL that started after its commit', async () => {
    const file = tempFile();
    const { db, close } = await createTable(file);
    const events: string[] = [];
    const realFsync = fs.fsync;
    mock.method(fs, 'fsync', (fd: number, callback: FsyncCallback) => {
      events.push('fsync started');
      realFsync(fd, (err) => {
        events.push('fsync done');
        callback(err);
      });
    });
    await db.insertInto('t').values({ id: 1, v: 'a' }).execute();
    events.push('write answered');
    const firstAnswer = events.indexOf('write answered');
    assert.ok(events.slice(0, firstAnswer).includes('fsync done'), `events: ${events.join(', ')}`);

    // A read with nothing left to make durable does not wait for the disk.
    events.length = 0;
    await db.selectFrom('t').selectAll().execute();
    assert.deepEqual(events, []);
    await close();
  });

  it('shares fsyncs between concurrent writes, and loses none of them', async () => {
    const file = tempFile();
    const { db, close } = await createTable(file);
    let fsyncs = 0;
    const realFsync = fs.fsync;
    mock.method(fs, 'fsync', (fd: number, callback: FsyncCallback) => {
      fsyncs += 1;
      // A slow disk: many commits queue up behind one fsync.
      setTimeout(() => realFsync(fd, callback), 5);
    });
    await Promise.all(Array.from({ length: 200 }, (_, i) => db.insertInto('t').values({ id: i, v: `row ${i}` }).execute()));
    assert.ok(fsyncs >= 1 && fsyncs < 50, `200 commits took ${fsyncs} fsyncs`);
    await close();

    const reopened = openSqlite(file);
    const { n } = await reopened.db.selectFrom('t' as never).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow() as { n: number };
    assert.equal(Number(n), 200);
    await reopened.close();
  });

  it('fails the queries whose commit an fsync could not make durable', async () => {
    const file = tempFile();
    const { db, close } = await createTable(file);
    await db.insertInto('t').values({ id: 1, v: 'first' }).execute();
    mock.method(fs, 'fsync', (_fd: number, callback: FsyncCallback) => {
      const err = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }) as NodeJS.ErrnoException;
      setImmediate(() => callback(err));
    });
    await assert.rejects(db.insertInto('t').values({ id: 2, v: 'second' }).execute(), /EIO/);
    mock.restoreAll();
    await close();
  });

  it('an HTTP request waits once, before its answer, for all its commits', async () => {
    const h = await createHarness();
    try {
      const { applicationId, messageId } = await createAppAndTemplate(h);
      const events: string[] = [];
      const realFsync = fs.fsync;
      mock.method(fs, 'fsync', (fd: number, callback: FsyncCallback) => {
        events.push('fsync');
        setTimeout(() => realFsync(fd, (err) => {
          events.push('fsync done');
          callback(err);
        }), 5);
      });
      // A send commits (the PIN with its message, limits and audit entry) before its answer waits.
      const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026727' } });
      events.push('answer');
      assert.equal(sent.status, 200);
      assert.deepEqual(events, ['fsync', 'fsync done', 'answer'], 'one fsync, done before the answer');
    } finally {
      mock.restoreAll();
      await h.close();
    }
  });

  it('shares one commit between the hot path units of a turn: a unit that throws is undone alone, and durable() covers the commit', async () => {
    const file = tempFile();
    await (await createTable(file)).close();
    const opened = openSqlite(file);
    const hot = opened.hotPath;
    const insert = hot.connection.prepare('insert into t (id, v) values (?, ?)');
    // Three units in one turn: the second writes, then throws.
    hot.write(() => insert.run(1, 'a'));
    assert.throws(() => hot.write(() => {
      insert.run(2, 'b');
      throw new Error('undo me');
    }), /undo me/);
    hot.write(() => insert.run(3, 'c'));
    // Nothing committed yet: another connection sees none of them.
    const other = new BetterSqlite3(file, { readonly: true });
    assert.deepEqual(other.prepare('select id from t order by id').all(), []);
    await opened.durability!.durable();
    assert.deepEqual(other.prepare('select id from t order by id').all(), [{ id: 1 }, { id: 3 }]);
    // Kysely's use of the connection commits an open shared transaction first, and never runs inside it.
    hot.write(() => insert.run(4, 'd'));
    await opened.db.transaction().execute(async (trx) => {
      await (trx as unknown as import('kysely').Kysely<{ t: { id: number; v: string } }>).insertInto('t').values({ id: 5, v: 'e' }).execute();
    });
    assert.deepEqual(other.prepare('select id from t order by id').all(), [{ id: 1 }, { id: 3 }, { id: 4 }, { id: 5 }]);
    other.close();
    await opened.close();
  });

  it('keeps an in-memory database as it was (no WAL, no fsync)', async () => {
    const { db, close } = openSqlite(':memory:');
    const fsync = mock.method(fs, 'fsync');
    await (db as unknown as import('kysely').Kysely<{ t: { id: number } }>).schema.createTable('t').addColumn('id', 'integer').execute();
    await (db as unknown as import('kysely').Kysely<{ t: { id: number } }>).insertInto('t').values({ id: 1 }).execute();
    assert.equal(fsync.mock.callCount(), 0);
    await close();
  });
});
