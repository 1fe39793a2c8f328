// Embedded SQLite through better-sqlite3: one file, WAL mode, one connection per process (Kysely
// serialises queries and transactions on it, which is what makes SQLite transactions race gates).
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { GroupCommitSqliteDialect, type SqliteDurability } from './group-commit.js';
import { SqliteHotPath } from './hot-path.js';
import { WalCheckpointer } from './wal-checkpointer.js';

export function openSqlite(file: string): { db: Kysely<Database>; close: () => Promise<void>; configVersion: () => string; durability: SqliteDurability | undefined; hotPath: SqliteHotPath } {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const connection = new BetterSqlite3(file);
  connection.pragma('journal_mode = WAL');
  // A send acknowledged to the client survives a power cut, not only a process crash: commits are
  // written with NORMAL and made durable by group commit (group-commit.ts) before any caller goes on.
  connection.pragma(file === ':memory:' ? 'synchronous = FULL' : 'synchronous = NORMAL');
  connection.pragma('busy_timeout = 5000');
  connection.pragma('foreign_keys = ON');
  // Overwrite deleted content (erased PIN ciphertexts) instead of leaving it in free pages.
  connection.pragma('secure_delete = ON');
  // Each unit of work runs in a savepoint of the shared transaction (hot-path.ts), whose sub-journal
  // keeps the first image of every page the unit changes: in memory, not in a temporary file written
  // through the kernel page by page (a send touches a dozen pages; the risk score's cost, BENCHMARKS.md).
  connection.pragma('temp_store = MEMORY');
  // Checkpoints run in a worker thread, not inside the commits of requests (wal-checkpointer.ts).
  const checkpointer = file === ':memory:' ? undefined : new WalCheckpointer(connection, path.resolve(file));
  const dialect = new GroupCommitSqliteDialect(connection, file);
  const db = new Kysely<Database>({ dialect });
  const hotPath = new SqliteHotPath(connection, db, dialect.durability);
  const close = async () => {
    await hotPath.close();
    await checkpointer?.stop();
    await db.destroy();
  };
  // durable() waits first for the hot path's shared transaction (hot-path.ts), then for the disk.
  const durability = dialect.durability && { ...dialect.durability, durable: () => hotPath.durable() };
  return { db, close, configVersion: () => dialect.changes.version(), durability, hotPath };
}
