// Group commit for the SQLite store. With `synchronous=FULL` every commit waits for its own fsync of
// the WAL, on the event loop's thread: one commit at a time, and nothing else runs meanwhile. Here
// commits are written with `synchronous=NORMAL` (atomic, and safe from a process crash) and made
// durable by an fsync of the WAL file run in libuv's thread pool: one fsync covers every commit made
// before it started, whichever request made them. No caller gets past a query until every commit
// made so far is on disk, readers included, so what a request sees and answers survives a power cut
// exactly as with FULL (no acknowledged send or counted attempt is ever lost); only the fsyncs are
// shared between the requests in flight. The hot paths (send, verify, their audit entries) opt out of
// the wait at each query explicitly (`deferNextRelease`, through KyselyStore's deferred()) and await
// `Store.durable()` once, in the service, before they answer.
import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteChangeWatch } from './change-watch.js';
import { SqliteDialect, type DatabaseConnection, type Driver, type SqliteDatabase, type SqliteDialectConfig, type SqliteStatement, type TransactionSettings, type QueryCompiler } from 'kysely';

/** Prepared statements kept per connection; Kysely's own SQL has a few dozen shapes. */
const STATEMENT_CACHE_SIZE = 500;

export class WalSync {
  /** Bumped once per released connection that wrote: every commit up to it is counted. */
  private committed = 0;
  private synced = 0;
  private wrote = false;
  private flushing: Promise<void> | undefined;
  private fd: number | undefined;

  constructor(private readonly walFile: string) {}

  /** A statement that may write ran on the connection. */
  noteWrite(): void {
    this.wrote = true;
  }

  /** The connection was released: whatever it wrote is committed (or rolled back) by now. */
  noteRelease(): void {
    if (this.wrote) {
      this.wrote = false;
      this.committed += 1;
    }
  }

  /** A transaction committed outside Kysely's connection (sqlite/hot-path.ts). */
  noteCommit(): void {
    this.committed += 1;
  }

  /** Resolves once every commit made so far is on disk. */
  async durable(): Promise<void> {
    const target = this.committed;
    while (this.synced < target) {
      this.flushing ??= this.flush().finally(() => {
        this.flushing = undefined;
      });
      await this.flushing;
    }
  }

  private async flush(): Promise<void> {
    // Only commits counted before the fsync starts are known to be in the file it flushes.
    const target = this.committed;
    if (this.fd === undefined) {
      this.fd = fs.openSync(this.walFile, 'r');
      // The WAL file's own directory entry, once: a file created since the last power cut must be found again.
      await fsyncAsync(fs.openSync(path.dirname(this.walFile), 'r'), true);
    }
    // An fsync that fails (EIO) rejects the callers' queries: what they wrote is not known to be on disk.
    await fsyncAsync(this.fd, false);
    this.synced = Math.max(this.synced, target);
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

function fsyncAsync(fd: number, thenClose: boolean): Promise<void> {
  return new Promise<void>((resolve, reject) => fs.fsync(fd, (err) => {
    if (thenClose) fs.close(fd, () => undefined);
    if (err) reject(err);
    else resolve();
  }));
}

/**
 * The connection as Kysely sees it: statements are prepared once per SQL text (Kysely compiles the
 * same few dozen shapes again and again), and any statement that can write is reported to `sync`.
 */
function trackingDatabase(connection: BetterSqlite3.Database, sync: WalSync | undefined, watch: SqliteChangeWatch): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => connection.close(),
    prepare(sql: string): SqliteStatement {
      let statement = cache.get(sql);
      if (statement === undefined) {
        statement = connection.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(sql, statement);
      }
      if (sync && !statement.readonly) sync.noteWrite();
      watch.noteStatement(sql, statement.readonly);
      return statement as unknown as SqliteStatement;
    },
  };
}

/**
 * What a store needs of group commit: every commit made so far made durable, and one use of the
 * connection whose release does not wait for it (the caller then awaits durable() itself).
 */
export interface SqliteDurability {
  durable(): Promise<void>;
  /** Called while holding the connection: its next release returns without waiting for the disk. */
  deferNextRelease(): void;
  /** A statement outside Kysely wrote inside a Kysely transaction: its release counts a commit. */
  noteWrite(): void;
  /** A transaction committed on the connection outside Kysely (hot-path.ts): durable() covers it from now on. */
  noteCommit(): void;
  /** `listener(true)` once Kysely has acquired the connection and before it runs anything on it, `listener(false)` when it let it go. */
  onConnectionUse(listener: (held: boolean) => void): void;
}

/** Kysely's SQLite driver, except that releasing the connection waits for durability (unless deferred). */
class GroupCommitDriver implements Driver {
  private deferred = false;
  connectionUse: ((held: boolean) => void) | undefined;
  constructor(private readonly inner: Driver, private readonly sync: WalSync) {}
  deferNextRelease(): void {
    this.deferred = true;
  }
  init(): Promise<void> {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    this.connectionUse?.(true);
    return connection;
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }
  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }
  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.inner.savepoint!(connection, name, compile);
  }
  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.inner.rollbackToSavepoint!(connection, name, compile);
  }
  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.inner.releaseSavepoint!(connection, name, compile);
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.connectionUse?.(false);
    this.sync.noteRelease();
    const deferred = this.deferred;
    this.deferred = false;
    // The connection is free for the next request before this one waits for the disk: that wait is
    // what the requests in flight share. A deferred use leaves the wait to its caller (durable()).
    await this.inner.releaseConnection(connection);
    if (!deferred) await this.sync.durable();
  }
  async destroy(): Promise<void> {
    await this.inner.destroy();
    this.sync.close();
  }
}

/** SQLite dialect with statement reuse and, for a file database, group commit. */
export class GroupCommitSqliteDialect extends SqliteDialect {
  private readonly sync: WalSync | undefined;
  private driver: GroupCommitDriver | undefined;
  private connectionUse: ((held: boolean) => void) | undefined;
  /** When cached configuration may be stale (../config-cache.ts). */
  readonly changes: SqliteChangeWatch;
  /** Absent for an in-memory database, whose commits are as durable as they get when they return. */
  readonly durability: SqliteDurability | undefined;

  constructor(connection: BetterSqlite3.Database, file: string, config: Omit<SqliteDialectConfig, 'database'> = {}) {
    const sync = file === ':memory:' ? undefined : new WalSync(`${path.resolve(file)}-wal`);
    const changes = new SqliteChangeWatch(connection);
    super({ ...config, database: trackingDatabase(connection, sync, changes) });
    this.sync = sync;
    this.changes = changes;
    this.durability = sync && {
      durable: () => sync.durable(),
      deferNextRelease: () => this.driver?.deferNextRelease(),
      noteWrite: () => sync.noteWrite(),
      noteCommit: () => sync.noteCommit(),
      onConnectionUse: (listener) => {
        this.connectionUse = listener;
      },
    };
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    if (!this.sync) return driver;
    this.driver = new GroupCommitDriver(driver, this.sync);
    this.driver.connectionUse = (held) => this.connectionUse?.(held);
    return this.driver;
  }
}
