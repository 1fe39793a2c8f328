// Synchronous work on the SQLite store's one connection, beside Kysely. better-sqlite3 runs every
// statement synchronously, so a transaction made of prepared statements with nothing awaited between
// them (BEGIN IMMEDIATE ... COMMIT in one call) cannot interleave with anything else in this process:
// it needs neither Kysely's connection lock nor a promise per statement. The one thing it must not do
// is run while a Kysely transaction on the same connection is open and waiting between two of its
// statements (it would read that transaction's uncommitted rows, and its COMMIT would be theirs): then
// it queues for the connection as Kysely's own queries do, and runs once that transaction ended.
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { SqliteDurability } from './group-commit.js';

export class SqliteHotPath {
  private readonly begin: BetterSqlite3.Statement;
  private readonly commit: BetterSqlite3.Statement;
  private readonly rollback: BetterSqlite3.Statement;

  constructor(readonly connection: BetterSqlite3.Database, private readonly db: Kysely<Database>, private readonly durability: SqliteDurability | undefined) {
    this.begin = connection.prepare('begin immediate');
    this.commit = connection.prepare('commit');
    this.rollback = connection.prepare('rollback');
  }

  /**
   * Runs `read` now, or after the Kysely transaction open on the connection. What it reads is
   * committed, not necessarily durable: the caller awaits Store.durable() before it answers.
   */
  read<T>(read: () => T): T | Promise<T> {
    if (!this.connection.inTransaction) return read();
    return this.db.connection().execute(async () => {
      this.durability?.deferNextRelease();
      return read();
    });
  }

  /**
   * A statement of this file's kind wrote inside a transaction Kysely opened (rate limits counted in
   * a send's transaction): the release of Kysely's connection then counts that transaction's commit.
   */
  noteWrite(): void {
    this.durability?.noteWrite();
  }

  /**
   * Runs `work` as one write transaction (BEGIN IMMEDIATE: the write lock first, so that no other
   * process's commit comes between its reads and its writes). Committed when it returns, durable
   * once the caller's Store.durable() resolves; a throw rolls everything back.
   */
  write<T>(work: () => T): T | Promise<T> {
    return this.read(() => {
      this.begin.run();
      try {
        const result = work();
        this.commit.run();
        return result;
      } catch (err) {
        if (this.connection.inTransaction) this.rollback.run();
        throw err;
      } finally {
        this.durability?.noteCommit();
      }
    });
  }
}
