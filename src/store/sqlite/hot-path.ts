// Synchronous work on the SQLite store's one connection, beside Kysely. better-sqlite3 runs every
// statement synchronously, so a unit of work made of prepared statements with nothing awaited between
// them cannot interleave with anything else in this process: it needs neither Kysely's connection
// lock nor a promise per statement. It must not run while Kysely holds the connection (inside a
// Kysely transaction it would read that transaction's uncommitted rows, and its COMMIT would be
// theirs): then it queues for the connection as Kysely's own queries do.
//
// Commits are shared. A file database's commit is the costly part of a small write (SQLite writes
// every page the transaction touched to the WAL, and the audit chain's and the rate limits' pages
// are touched by every request), so the units of work of one turn of the event loop run in one
// transaction, each inside a savepoint of its own (a unit that throws is undone alone), and that
// transaction commits once, at the end of the turn (setImmediate), or earlier when Kysely or a
// committed-only read needs the connection. Nobody waits longer for it than for the fsync it needs
// anyway: a caller answers only after durable(), which waits for this commit, then for that fsync.
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { SqliteDurability } from './group-commit.js';

/**
 * Writes kept beside the transaction rather than run inside each unit's savepoint: written once, just
 * before it commits (or later still, by a unit of their own: the risk score's counters,
 * sqlite/risk-statements.ts), and forgotten if it rolls back.
 */
export interface FoldedWrites {
  /** Writes what the transaction's units added (inside the transaction, before its COMMIT). */
  flush(): void;
  /** The transaction flushed has committed. */
  committed(): void;
  /** Forgets what the transaction's units added: the transaction was rolled back (before or after its flush). */
  discard(): void;
  /** The connection closes: writes what is still held back, as a unit (write()), and holds nothing more. */
  close?(): void | Promise<void>;
}

/** The open shared transaction: its units' callers wait for its commit in durable(). */
interface SharedTransaction {
  committed: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class SqliteHotPath {
  private readonly begin: BetterSqlite3.Statement;
  private readonly commitStatement: BetterSqlite3.Statement;
  private readonly rollback: BetterSqlite3.Statement;
  private readonly savepoint: BetterSqlite3.Statement;
  private readonly releaseSavepoint: BetterSqlite3.Statement;
  private readonly rollbackToSavepoint: BetterSqlite3.Statement;
  private shared: SharedTransaction | undefined;
  /** Kysely holds the connection (between its acquire and release: group-commit.ts tells). */
  private kyselyHolds = false;
  private readonly folded: FoldedWrites[] = [];
  /** While a unit runs: what undoes its folded writes if it is undone. */
  private unitUndo: (() => void)[] | undefined;

  constructor(readonly connection: BetterSqlite3.Database, private readonly db: Kysely<Database>, private readonly durability: SqliteDurability | undefined) {
    this.begin = connection.prepare('begin immediate');
    this.commitStatement = connection.prepare('commit');
    this.rollback = connection.prepare('rollback');
    this.savepoint = connection.prepare('savepoint unit');
    this.releaseSavepoint = connection.prepare('release unit');
    this.rollbackToSavepoint = connection.prepare('rollback to unit');
    // Kysely is about to use the connection: the shared transaction commits first, so that Kysely
    // never runs inside it.
    durability?.onConnectionUse((held) => {
      this.kyselyHolds = held;
      if (held) this.commitShared();
    });
  }

  /**
   * Runs `read` on what is committed: now (after committing the shared transaction, if one is
   * open), or once Kysely releases the connection. Not necessarily durable yet: a caller that
   * answers from it awaits durable() first.
   */
  read<T>(read: () => T): T | Promise<T> {
    this.commitShared();
    return this.whenFree(read);
  }

  /**
   * Runs `read` now, inside the shared transaction if one is open (it may see what other units of
   * this turn wrote and have not committed yet): only for a caller that awaits durable() before it
   * answers anything it read, which also waits for that commit.
   */
  readBeforeWrite<T>(read: () => T): T | Promise<T> {
    return this.whenFree(read);
  }

  /**
   * A statement of this file's kind wrote inside a transaction Kysely opened (rate limits counted in
   * a resend's transaction): the release of Kysely's connection then counts that transaction's commit.
   */
  noteWrite(): void {
    this.durability?.noteWrite();
  }

  /**
   * Runs `work` as one unit: all of it is written or, if it throws, none of it. Committed with the
   * other units of this turn, durable once the caller's durable() resolves. The write lock is taken
   * first (BEGIN IMMEDIATE), so no other process's commit comes between a unit's reads and its writes.
   */
  write<T>(work: () => T): T | Promise<T> {
    if (!this.durability) return this.whenFree(() => this.ownTransaction(work));
    return this.whenFree(() => (this.kyselyHolds ? this.ownTransaction(work) : this.inShared(work)));
  }

  /** Every unit written so far committed (if one is open, the shared transaction commits now) and on disk. */
  async durable(): Promise<void> {
    if (!this.durability) return;
    if (this.shared) await this.shared.committed;
    await this.durability.durable();
  }

  /** `writes` are flushed before every commit of this connection's units (and discarded with a rollback). */
  foldIntoCommit(writes: FoldedWrites): void {
    this.folded.push(writes);
  }

  /** Inside a unit (write()'s `work`): `undo` forgets what it folded if the unit is undone. */
  onUnitUndone(undo: () => void): void {
    if (!this.unitUndo) throw new Error('onUnitUndone outside a unit of work');
    this.unitUndo.push(undo);
  }

  /** Before the connection closes: every folded write's held-back rows written, and the shared transaction committed. */
  async close(): Promise<void> {
    for (const writes of this.folded) await writes.close?.();
    this.commitShared();
  }

  /** Commits the shared transaction, if one is open; its units' callers learn a failure from durable(). */
  commitShared(): void {
    const shared = this.shared;
    if (!shared) return;
    this.shared = undefined;
    try {
      this.commitWithFolded();
      shared.resolve();
    } catch (err) {
      this.rollbackWithFolded();
      shared.reject(err);
    } finally {
      this.durability?.noteCommit();
    }
  }

  private whenFree<T>(run: () => T): T | Promise<T> {
    if (!this.kyselyHolds && !(this.durability === undefined && this.connection.inTransaction)) return run();
    return this.db.connection().execute(async () => {
      this.durability?.deferNextRelease();
      return run();
    });
  }

  private inShared<T>(work: () => T): T {
    if (!this.shared) {
      this.begin.run();
      let resolve!: () => void;
      let reject!: (err: unknown) => void;
      const committed = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      // A commit that fails is reported to the callers through durable(), not as an unhandled rejection.
      committed.catch(() => undefined);
      this.shared = { committed, resolve, reject };
      setImmediate(() => this.commitShared());
    }
    this.savepoint.run();
    try {
      const result = this.asUnit(work);
      this.releaseSavepoint.run();
      return result;
    } catch (err) {
      if (this.connection.inTransaction) {
        this.rollbackToSavepoint.run();
        this.releaseSavepoint.run();
      } else {
        // SQLite rolled the whole transaction back (an I/O error, a full disk): every unit in it is lost.
        for (const writes of this.folded) writes.discard();
        this.shared?.reject(err);
        this.shared = undefined;
        this.durability?.noteCommit();
      }
      throw err;
    }
  }

  /** Runs `work`, undoing what it folded if it throws (its statements are undone by the caller's rollback). */
  private asUnit<T>(work: () => T): T {
    const undo: (() => void)[] = [];
    this.unitUndo = undo;
    try {
      return work();
    } catch (err) {
      for (const step of undo.reverse()) step();
      throw err;
    } finally {
      this.unitUndo = undefined;
    }
  }

  private commitWithFolded(): void {
    for (const writes of this.folded) writes.flush();
    this.commitStatement.run();
    for (const writes of this.folded) writes.committed();
  }

  private rollbackWithFolded(): void {
    for (const writes of this.folded) writes.discard();
    if (this.connection.inTransaction) this.rollback.run();
  }

  /** A transaction of its own, committed before it returns (an in-memory database, or inside Kysely's hold). */
  private ownTransaction<T>(work: () => T): T {
    this.begin.run();
    try {
      const result = this.asUnit(work);
      this.commitWithFolded();
      return result;
    } catch (err) {
      this.rollbackWithFolded();
      throw err;
    } finally {
      this.durability?.noteCommit();
    }
  }
}
