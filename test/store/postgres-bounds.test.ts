// What a failed statement means for what it wrote, as open-postgres.ts reports it to the HTTP layer: a
// DatabaseUnavailableError (answered 503, "retry") only when nothing was committed; a write whose answer
// was lost on its way back (it may have committed, and here it did) stays a plain error (500). The
// database is reached through a TCP proxy that the test stalls, both ways or only the server's answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { openPostgres } from '../../src/store/postgres/open-postgres.js';
import { DatabaseUnavailableError } from '../../src/store/store.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const skip = await skipUnlessPostgres();

/** Well above the bounds under test (1 s per statement, + 1 s for an answer; 1 s for a connection). */
const SETTLE_WAIT_MS = 10_000;

/** The statement's failure, or a failure of the test if it is still pending after SETTLE_WAIT_MS. */
async function failureOf(what: string, statement: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${SETTLE_WAIT_MS} ms`)), SETTLE_WAIT_MS);
  });
  try {
    await Promise.race([statement, pending]);
  } catch (err) {
    if ((err as Error).message.startsWith(`${what}: still pending`)) throw err;
    return err;
  } finally {
    clearTimeout(timer);
  }
  throw new Error(`${what}: succeeded while the database stalled`);
}

describe('PostgreSQL statement and connection bounds', { skip }, () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let handle: ReturnType<typeof openPostgres>;
  let db: Kysely<any>;
  let row = 0;

  before(async () => {
    database = await createTestDatabase('bounds');
    await database.query('create table written (id int primary key)');
    const target = new URL(database.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    handle = openPostgres(proxy.via(database.url), { poolSize: 1, statementTimeoutMs: 1000, connectionTimeoutMs: 1000 });
    db = handle.db as unknown as Kysely<any>;
  });
  after(async () => {
    proxy?.flow();
    await handle?.close();
    await proxy?.close();
    await database?.drop();
  });

  const insert = (trx: Kysely<any> = db) => {
    row += 1;
    return { id: row, done: trx.insertInto('written').values({ id: row }).execute() };
  };
  const stored = async (id: number) => (await database.query('select 1 from written where id = $1', [id])).rowCount === 1;
  /** Lets the bytes through again and waits until the pool serves (a broken connection is replaced). */
  const recover = async () => {
    proxy.flow();
    await sql`select 1`.execute(db);
  };

  it('a read that gets no answer is unavailable; a write that gets none is not, even one that never reached the server', async () => {
    proxy.stall();
    assert.ok(await failureOf('read', sql`select 1`.execute(db)) instanceof DatabaseUnavailableError);
    await recover();
    proxy.stall();
    const write = insert();
    // An autocommitted write whose answer is lost could have committed: without it reaching the server, the node cannot tell.
    assert.ok(!((await failureOf('write', write.done)) instanceof DatabaseUnavailableError));
    await recover();
    assert.equal(await stored(write.id), false);
  });

  it('a write in a transaction whose statement gets no answer is unavailable, and rolled back', async () => {
    let id = 0;
    const transaction = db.transaction().execute(async (trx) => {
      proxy.stall();
      const write = insert(trx);
      id = write.id;
      await write.done;
    });
    assert.ok(await failureOf('transaction', transaction) instanceof DatabaseUnavailableError);
    await recover();
    assert.equal(await stored(id), false);
  });

  it('a COMMIT whose answer is lost is not unavailable: it did commit, and a retry would write twice', async () => {
    let id = 0;
    const transaction = db.transaction().execute(async (trx) => {
      const write = insert(trx);
      id = write.id;
      await write.done;
      // The COMMIT reaches the server; its answer does not come back.
      proxy.stall({ repliesOnly: true });
    });
    assert.ok(!((await failureOf('commit', transaction)) instanceof DatabaseUnavailableError));
    await recover();
    assert.equal(await stored(id), true);
  });

  it('a write committed by itself whose answer is lost is not unavailable either', async () => {
    proxy.stall({ repliesOnly: true });
    const write = insert();
    assert.ok(!((await failureOf('write', write.done)) instanceof DatabaseUnavailableError));
    await recover();
    assert.equal(await stored(write.id), true);
  });

  it('a statement the server cancels at its statement_timeout is unavailable, and rolled back', async () => {
    const transaction = db.transaction().execute(async (trx) => {
      const write = insert(trx);
      await write.done;
      await sql`select pg_sleep(5)`.execute(trx);
    });
    const failure = await failureOf('slow statement', transaction);
    assert.ok(failure instanceof DatabaseUnavailableError);
    assert.equal((failure.cause as { code?: string }).code, '57014', 'cancelled by the server');
    assert.equal(await stored(row), false);
  });

  it('a query that waits for a pool connection past the bound is unavailable', async () => {
    proxy.stall();
    // The pool's one connection is held by a statement that gets no answer.
    const holding = sql`select 1`.execute(db).catch((err: unknown) => err);
    assert.ok(await failureOf('pool wait', sql`select 2`.execute(db)) instanceof DatabaseUnavailableError);
    await holding;
    await recover();
  });
});
