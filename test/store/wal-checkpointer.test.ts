// WAL checkpoints in a worker thread (src/store/sqlite/wal-checkpointer.ts). What an operator relies
// on: under writes that never pause, the write-ahead log still starts over, so its file stays bounded
// (SQLite's own checkpoints are off on the server's connection); and everything written is in the
// database file once the store is closed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openSqlite } from '../../src/store/sqlite/open-sqlite.js';

describe('WAL checkpoints in a worker thread', () => {
  it('keeps the log bounded under writes that never pause, and loses nothing at close', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-checkpoint-'));
    const file = path.join(dir, 'twofa.db');
    const { db, close, durability } = openSqlite(file);
    const t = db as unknown as import('kysely').Kysely<{ t: { id: number; v: string } }>;
    await t.schema.createTable('t').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('v', 'text').execute();
    const padding = 'x'.repeat(3000);
    let largestWal = 0;
    let rows = 0;
    // Writes that never pause, as a busy server's: each turn of the event loop commits a few rows
    // (about a page of log each) without waiting for the disk, then lets other work (the worker's
    // reports) run. A fixed count, not a time: 15,000 rows of a page each would grow the log to about
    // 60 MB if it never started over, however fast or slow the machine writes them.
    const insertUnsynced = (id: number) => t.connection().execute((connection) => {
      durability!.deferNextRelease();
      return connection.insertInto('t').values({ id, v: padding }).execute();
    });
    while (rows < 15_000) {
      await Promise.all(Array.from({ length: 20 }, () => insertUnsynced((rows += 1))));
      largestWal = Math.max(largestWal, fs.statSync(`${file}-wal`).size);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await durability!.durable();
    await close();
    assert.ok(largestWal < 40 * 1024 * 1024, `the log grew to ${(largestWal / 1048576).toFixed(1)} MB (${rows} rows)`);
    assert.equal(fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0, 0, 'the log is folded into the database at close');
    const check = new Database(file, { readonly: true });
    try {
      assert.equal((check.prepare('select count(*) as n from t').get() as { n: number }).n, rows);
      assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      check.close();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
