// The risk score's hits on SQLite are folded into the commit of the hot path's shared transaction
// (src/store/sqlite/risk-statements.ts, hot-path.ts FoldedWrites), and read from memory: what users
// rely on is that no hit is lost or counted twice. A read before the commit sees the turn's hits, the
// commit writes one row per counter and bucket with their sum, a unit that is undone takes its hits
// and decision back, a commit that fails loses the whole turn's (as its PINs), never half of it, and
// after a restart every counter reads what it read before (the recent window's rebuilt from their log).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/store/migrations.js';
import type { RiskDecisionRecord, RiskWrite } from '../../src/store/risk-store.js';
import { openSqlite } from '../../src/store/sqlite/open-sqlite.js';
import { HELD_HITS_WRITE_MS, SqliteRiskStatements } from '../../src/store/sqlite/risk-statements.js';

const APP = 'app-1';
const BUCKET = 1_800_000_000_000;

async function openMigrated(file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-risk-fold-')), 'twofa.db'), recentMax?: number) {
  const opened = openSqlite(file);
  await migrateToLatest(opened.db as unknown as Kysely<unknown>, 'sqlite');
  const risk = new SqliteRiskStatements(opened.hotPath, recentMax);
  /** What is committed, through a connection of its own. */
  const committed = () => {
    const reader = new BetterSqlite3(file, { readonly: true });
    try {
      return {
        counters: reader.prepare('select counter, bucket_start as bucket, hits from risk_counters order by counter, bucket_start').all() as { counter: string; bucket: number; hits: number }[],
        decisions: (reader.prepare('select id from risk_decisions order by id').all() as { id: string }[]).map((d) => d.id),
        recentLog: reader.prepare('select bucket_start as bucket, counters from risk_recent_hits order by rowid').all() as { bucket: number; counters: string }[],
      };
    } finally {
      reader.close();
    }
  };
  /** The held hits written now (as the timer would, HELD_HITS_WRITE_MS after their commit) and committed. */
  const written = async () => {
    await opened.hotPath.durable();
    await opened.hotPath.write(() => risk.writeHeld());
    await opened.hotPath.durable();
  };
  return { ...opened, file, risk, committed, written };
}

function decision(id: string): RiskDecisionRecord {
  return {
    id, accountId: 'acc', applicationId: APP, pinId: null, kind: 'send', createdAt: BUCKET, destination: '41791234567', country: 'CH',
    score: 80, threshold: 70, decision: 'shadow_block', mode: 'shadow', safeListed: false, signals: '[]', price: null,
  };
}

function hitsOf(counters: string[], bucketStart = BUCKET, recent = false): RiskWrite {
  return { applicationId: APP, hits: counters.map((counter) => ({ counter, bucketStart, ...(recent ? { recent: true } : {}) })) };
}

const reads = (counters: string[], recent = false) => counters.map((counter) => ({ counter, since: BUCKET - 1, ...(recent ? { recent: true } : {}) }));

describe('the risk counters folded into the shared commit (SQLite)', () => {
  it('counts every hit of a turn: a read before the commit sees them, the commit its decision, a later write their sums once', async () => {
    const { risk, hotPath, committed, written, close } = await openMigrated();
    // Three sends of one turn (no await between them: one shared transaction) hit the same counter.
    await risk.write(hitsOf(['as', 'd:4179.4']));
    await risk.write(hitsOf(['as', 'd:4178.4']));
    await risk.write({ ...hitsOf(['as']), decision: decision('d1') });
    const before = await risk.read(APP, reads(['as', 'd:4179.4', 'd:4178.4', 'never']));
    assert.deepEqual(Object.fromEntries(before), { as: 3, 'd:4179.4': 1, 'd:4178.4': 1, never: 0 });
    await hotPath.durable();
    // The decision is written with its commit; the hits are held back (counted in memory).
    assert.deepEqual(committed(), { counters: [], decisions: ['d1'], recentLog: [] });
    assert.deepEqual(Object.fromEntries(await risk.read(APP, reads(['as', 'd:4179.4']))), { as: 3, 'd:4179.4': 1 });
    await written();
    assert.deepEqual(committed().counters, [
      { counter: 'as', bucket: BUCKET, hits: 3 }, { counter: 'd:4178.4', bucket: BUCKET, hits: 1 }, { counter: 'd:4179.4', bucket: BUCKET, hits: 1 },
    ]);
    // The next turn adds to the committed rows, and a read counts them once, not again from memory.
    await risk.write(hitsOf(['as']));
    assert.equal((await risk.read(APP, reads(['as']))).get('as'), 4);
    await written();
    assert.equal((await risk.read(APP, reads(['as']))).get('as'), 4);
    assert.deepEqual(committed().counters[0], { counter: 'as', bucket: BUCKET, hits: 4 });
    await close();
  });

  it('counts only the buckets inside the window read, committed or not', async () => {
    const { risk, hotPath, close } = await openMigrated();
    await risk.write(hitsOf(['h'], BUCKET - 86_400_000));
    await hotPath.durable();
    await risk.write(hitsOf(['h'], BUCKET));
    assert.equal((await risk.read(APP, [{ counter: 'h', since: BUCKET - 1 }])).get('h'), 1);
    assert.equal((await risk.read(APP, [{ counter: 'h', since: BUCKET - 86_400_001 }])).get('h'), 2);
    await close();
  });

  it('takes back the hits and the decision of a unit that is undone, and keeps the others of its turn', async () => {
    const { risk, hotPath, committed, written, close } = await openMigrated();
    await risk.write(hitsOf(['as']));
    assert.throws(() => hotPath.write(() => {
      risk.apply({ ...hitsOf(['as', 'cs:CH']), decision: decision('undone') });
      throw new Error('a later statement of the unit failed');
    }), /a later statement/);
    assert.deepEqual(Object.fromEntries(await risk.read(APP, reads(['as', 'cs:CH']))), { as: 1, 'cs:CH': 0 });
    await written();
    const rows = committed();
    assert.deepEqual(rows.counters, [{ counter: 'as', bucket: BUCKET, hits: 1 }]);
    assert.deepEqual(rows.decisions, []);
    await close();
  });

  it('loses the whole turn when its commit fails (as its PINs), and counts the next turn from what is committed', async () => {
    const { risk, hotPath, committed, written, close } = await openMigrated();
    const connection = hotPath.connection;
    await risk.write(hitsOf(['as']));
    await hotPath.durable();
    // A decision whose id is already committed: the flush's insert fails, so the commit does.
    await risk.write({ ...hitsOf(['as', 'cs:CH']), decision: decision('dup') });
    connection.prepare("insert into risk_decisions (id, account_id, application_id, pin_id, kind, created_at, destination, country, score, threshold, decision, mode, safe_listed, signals) values ('dup', 'acc', 'app-1', null, 'send', 0, '1', null, 0, 0, 'allow', 'shadow', 0, '[]')").run();
    await assert.rejects(hotPath.durable(), /UNIQUE constraint failed/);
    assert.equal(connection.inTransaction, false);
    assert.deepEqual(Object.fromEntries(await risk.read(APP, reads(['as', 'cs:CH']))), { as: 1, 'cs:CH': 0 });
    await risk.write(hitsOf(['cs:CH']));
    await written();
    assert.deepEqual(committed().counters, [{ counter: 'as', bucket: BUCKET, hits: 1 }, { counter: 'cs:CH', bucket: BUCKET, hits: 1 }]);
    await close();
  });

  it('writes a turn of hundreds of counters (more than one statement holds) with none lost', async () => {
    const { risk, committed, written, close } = await openMigrated();
    const counters = Array.from({ length: 341 }, (_, i) => `d:${String(i).padStart(4, '0')}.0`);
    for (const counter of counters) await risk.write(hitsOf([counter, 'as']));
    await written();
    const rows = committed().counters;
    assert.equal(rows.length, 342);
    assert.deepEqual(rows.find((r) => r.counter === 'as'), { counter: 'as', bucket: BUCKET, hits: 341 });
    assert.ok(rows.filter((r) => r.counter !== 'as').every((r) => r.hits === 1));
    await close();
  });

  it('keeps the recent window\'s counters in memory and a log of them, one row per write, and rebuilds them after a restart', async () => {
    const first = await openMigrated();
    await first.risk.write(hitsOf(['d:41791234567.0', 'd:4179123.4'], BUCKET, true));
    await first.risk.write(hitsOf(['d:41791234568.0', 'd:4179123.4'], BUCKET, true));
    await first.risk.write(hitsOf(['as']));
    await first.written();
    const rows = first.committed();
    assert.deepEqual(rows.counters, [{ counter: 'as', bucket: BUCKET, hits: 1 }]);
    assert.deepEqual(rows.recentLog.map((r) => ({ bucket: r.bucket, counters: JSON.parse(r.counters) as unknown })), [
      { bucket: BUCKET, counters: ['d:41791234567.0', 'd:4179123.4', 'd:41791234568.0', 'd:4179123.4'] },
    ]);
    const before = Object.fromEntries(await first.risk.read(APP, [...reads(['d:4179123.4', 'd:41791234567.0'], true), ...reads(['as'])]));
    assert.deepEqual(before, { 'd:4179123.4': 2, 'd:41791234567.0': 1, as: 1 });
    await first.close();

    const again = await openMigrated(first.file);
    assert.deepEqual(Object.fromEntries(await again.risk.read(APP, [...reads(['d:4179123.4', 'd:41791234567.0'], true), ...reads(['as'])])), before);
    // What is counted after the restart adds to what was rebuilt, in memory and in the log.
    await again.risk.write(hitsOf(['d:4179123.4'], BUCKET, true));
    await again.risk.write(hitsOf(['as']));
    await again.written();
    assert.deepEqual(Object.fromEntries(await again.risk.read(APP, [...reads(['d:4179123.4'], true), ...reads(['as'])])), { 'd:4179123.4': 3, as: 2 });
    assert.equal(again.committed().recentLog.length, 2);
    await again.close();
  });

  it('forgets the recent window\'s buckets past the hour and the others past theirs, in memory and on disk', async () => {
    const { risk, hotPath, committed, written, file, close } = await openMigrated();
    const hour = 3_600_000;
    await risk.write(hitsOf(['d:4179123.4'], BUCKET - 2 * hour, true));
    await risk.write(hitsOf(['d:4179123.4'], BUCKET, true));
    await risk.write(hitsOf(['h'], BUCKET - 40 * 24 * hour));
    await risk.write(hitsOf(['h'], BUCKET));
    await written();
    const everything = [{ counter: 'd:4179123.4', since: 0, recent: true }, { counter: 'h', since: 0 }];
    assert.deepEqual(Object.fromEntries(await risk.read(APP, everything)), { 'd:4179123.4': 2, h: 2 });
    await risk.purge(BUCKET - 31 * 24 * hour, BUCKET - hour);
    await hotPath.durable();
    assert.deepEqual(Object.fromEntries(await risk.read(APP, everything)), { 'd:4179123.4': 1, h: 1 });
    const rows = committed();
    assert.deepEqual(rows.counters, [{ counter: 'h', bucket: BUCKET, hits: 1 }]);
    assert.deepEqual(rows.recentLog.map((r) => r.bucket), [BUCKET]);
    await close();
    const again = await openMigrated(file);
    assert.deepEqual(Object.fromEntries(await again.risk.read(APP, everything)), { 'd:4179123.4': 1, h: 1 });
    await again.close();
  });

  it('holds at most so many recent counters in memory: the oldest buckets go first, the one being counted stays', async () => {
    const { risk, hotPath, close } = await openMigrated(undefined, 4);
    const fiveMinutes = 300_000;
    const numbers = (from: number, n: number) => Array.from({ length: n }, (_, i) => `d:${from + i}.0`);
    await risk.write({ applicationId: 'other', hits: [{ counter: 'd:1.0', bucketStart: BUCKET - 2 * fiveMinutes, recent: true }] });
    await risk.write(hitsOf(numbers(100, 2), BUCKET - 2 * fiveMinutes, true));
    await risk.write(hitsOf(numbers(200, 1), BUCKET - fiveMinutes, true));
    await hotPath.durable();
    const all = [...numbers(100, 2), ...numbers(200, 1), ...numbers(300, 6)].map((counter) => ({ counter, since: 0, recent: true }));
    // Four held: nothing forgotten yet.
    assert.deepEqual([...(await risk.read(APP, all)).values()].slice(0, 3), [1, 1, 1]);
    await risk.write(hitsOf(numbers(300, 6), BUCKET, true));
    await hotPath.durable();
    // Ten would be held: both older buckets go (every application's), the newest stays though it alone is over the bound.
    const after = await risk.read(APP, all);
    assert.deepEqual([...after.values()], [0, 0, 0, 1, 1, 1, 1, 1, 1]);
    assert.equal((await risk.read('other', [{ counter: 'd:1.0', since: 0, recent: true }])).get('d:1.0'), 0);
    await close();
  });
  it('holds the hits back from the tables and writes them by itself within HELD_HITS_WRITE_MS of their commit', async () => {
    const { risk, hotPath, committed, close } = await openMigrated();
    await risk.write(hitsOf(['as']));
    await risk.write(hitsOf(['d:4179123.4'], BUCKET, true));
    await hotPath.durable();
    assert.deepEqual(committed(), { counters: [], decisions: [], recentLog: [] });
    const deadline = Date.now() + HELD_HITS_WRITE_MS + 5_000;
    while (committed().counters.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const rows = committed();
    assert.deepEqual(rows.counters, [{ counter: 'as', bucket: BUCKET, hits: 1 }]);
    assert.deepEqual(rows.recentLog.map((r) => JSON.parse(r.counters) as unknown), [['d:4179123.4']]);
    await close();
  });

  it('writes what it holds when the store closes: a restart counts every committed hit', async () => {
    const first = await openMigrated();
    await first.risk.write(hitsOf(['as', 'cs:CH']));
    await first.risk.write(hitsOf(['d:4179123.4'], BUCKET, true));
    await first.hotPath.durable();
    await first.close();
    const again = await openMigrated(first.file);
    assert.deepEqual(again.committed().counters, [{ counter: 'as', bucket: BUCKET, hits: 1 }, { counter: 'cs:CH', bucket: BUCKET, hits: 1 }]);
    assert.deepEqual(Object.fromEntries(await again.risk.read(APP, [...reads(['as']), ...reads(['d:4179123.4'], true)])), { as: 1, 'd:4179123.4': 1 });
    await again.close();
  });

  it('holds the hits again when their write fails, and writes them once later', async () => {
    const { risk, hotPath, committed, written, close } = await openMigrated();
    await risk.write(hitsOf(['as']));
    await risk.write(hitsOf(['d:4179123.4'], BUCKET, true));
    await hotPath.durable();
    hotPath.connection.exec("create trigger refuse before insert on risk_counters begin select raise(abort, 'the disk is full'); end");
    await assert.rejects(async () => hotPath.write(() => risk.writeHeld()), /the disk is full/);
    await hotPath.durable();
    assert.deepEqual(committed().counters, []);
    hotPath.connection.exec('drop trigger refuse');
    await written();
    assert.deepEqual(committed().counters, [{ counter: 'as', bucket: BUCKET, hits: 1 }]);
    assert.equal(committed().recentLog.length, 1);
    assert.deepEqual(Object.fromEntries(await risk.read(APP, [...reads(['as']), ...reads(['d:4179123.4'], true)])), { as: 1, 'd:4179123.4': 1 });
    await close();
  });

  it('counts a held hit once when its counter is first read before, during or after its write', async () => {
    const { risk, hotPath, written, close } = await openMigrated();
    await risk.write(hitsOf(['as', 'cs:CH', 'cs:DE']));
    await hotPath.durable();
    // Read first while held (from memory), then once written.
    assert.equal((await risk.read(APP, reads(['as']))).get('as'), 1);
    // Read first by a unit of the transaction that writes it (its rows are read, not counted again).
    const during = await hotPath.write(() => {
      risk.writeHeld();
      return risk.read(APP, reads(['cs:CH']));
    });
    assert.equal(during.get('cs:CH'), 1);
    await hotPath.durable();
    await written();
    // Read first once written.
    assert.deepEqual(Object.fromEntries(await risk.read(APP, reads(['as', 'cs:CH', 'cs:DE']))), { as: 1, 'cs:CH': 1, 'cs:DE': 1 });
    await close();
  });
});
