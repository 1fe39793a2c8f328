// Databases for the tests of the migrations themselves: a Kysely with no schema yet, on a fresh SQLite
// file or on a PostgreSQL test database (support/postgres.ts), which the test migrates as far as it needs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import pg from 'pg';

interface KyselyOptions {
  /** Sees every statement run (Kysely's `log`). */
  log?: (event: LogEvent) => void;
}

export interface ScratchSqlite {
  db: Kysely<unknown>;
  /** The same database without Kysely, for reads under the hood. */
  sqlite: Database.Database;
  file: string;
  /** Closes the database and removes its folder. */
  dispose(): Promise<void>;
}

/** An empty SQLite file in a folder of its own. */
export function scratchSqlite(label: string, options: KyselyOptions = {}): ScratchSqlite {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `twofa-${label}-`));
  const file = path.join(dir, 'db.sqlite');
  const sqlite = new Database(file);
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }), ...(options.log ? { log: options.log } : {}) });
  return {
    db, sqlite, file,
    dispose: async () => {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Kysely on one connection to the database at `url`. */
export function kyselyOnPostgres(url: string, options: KyselyOptions = {}): Kysely<unknown> {
  return new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }), ...(options.log ? { log: options.log } : {}) });
}
