// A migration, once released, must run the same SQL forever: databases created before a change ran
// the old text, so a migration that now runs something else leaves new databases different from old
// ones with nothing to tell them apart. This test runs every migration on an empty SQLite file and an
// empty PostgreSQL database, records each statement it runs, and compares a digest of them, per
// migration and dialect, with fixtures/migration-sql.json.
//
// A migration appended at the end is not in the fixture yet: run this file once with
// UPDATE_MIGRATION_FIXTURE=1 to add it. That adds entries only; an entry that differs still fails.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { Kysely, LogEvent } from 'kysely';
import ts from 'typescript';
import { migrateToLatest, type SqlDialect } from '../../src/store/migrations.js';
import { kyselyOnPostgres, scratchSqlite } from '../support/migration-databases.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';

const skip = await skipUnlessPostgres();
const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'migration-sql.json');
const SCHEMA_SOURCE = path.join(import.meta.dirname, '..', '..', 'src', 'store', 'schema.ts');
const MIGRATION_TABLE = 'twofa_migrations';

type Fixture = Record<SqlDialect, Record<string, string>>;

/** Records every statement a Kysely instance runs, as SQL text and its parameters. */
function statementRecorder(): { log: (event: LogEvent) => void; statements: Array<{ sql: string; parameters: readonly unknown[] }> } {
  const statements: Array<{ sql: string; parameters: readonly unknown[] }> = [];
  return { statements, log: (event) => { statements.push({ sql: event.query.sql, parameters: event.query.parameters }); } };
}

/**
 * The statements of each migration, by name: Kysely's Migrator runs a migration's statements, then
 * inserts its name into the migration table, so what runs between two such inserts is the second
 * migration's. The Migrator's own bookkeeping (its tables, its lock, its transaction) is left out.
 */
function statementsByMigration(statements: Array<{ sql: string; parameters: readonly unknown[] }>): Map<string, string[]> {
  const byMigration = new Map<string, string[]>();
  let pending: string[] = [];
  for (const statement of statements) {
    if (new RegExp(`^insert into "${MIGRATION_TABLE}"`).test(statement.sql)) {
      byMigration.set(String(statement.parameters[0]), pending);
      pending = [];
    } else if (!statement.sql.includes(MIGRATION_TABLE) && !/pg_advisory|^(begin|commit|rollback)\b/i.test(statement.sql)) {
      pending.push(statement.parameters.length === 0 ? statement.sql : `${statement.sql} -- ${JSON.stringify(statement.parameters)}`);
    }
  }
  assert.deepEqual(pending, [], 'statements after the last migration was recorded');
  return byMigration;
}

function digest(statements: string[]): string {
  return createHash('sha256').update(statements.join('\n;\n')).digest('hex');
}

/** Runs every migration on an empty database through `db` and returns the digest of each one's SQL. */
async function migrationDigests(db: Kysely<unknown>, dialect: SqlDialect, recorded: Array<{ sql: string; parameters: readonly unknown[] }>): Promise<Record<string, string>> {
  const applied = await migrateToLatest(db, dialect);
  const byMigration = statementsByMigration(recorded);
  assert.deepEqual([...byMigration.keys()], applied, 'every applied migration recorded, in order');
  return Object.fromEntries([...byMigration].map(([name, statements]) => [name, digest(statements)]));
}

function readFixture(): Fixture {
  return fs.existsSync(FIXTURE) ? JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as Fixture : { sqlite: {}, postgres: {} };
}

/**
 * Compares the digests with the fixture. Under UPDATE_MIGRATION_FIXTURE=1 a migration the fixture does
 * not hold yet is added to it; nothing already there is ever rewritten.
 */
function checkAgainstFixture(dialect: SqlDialect, digests: Record<string, string>): void {
  const fixture = readFixture();
  const known = fixture[dialect];
  const added = Object.keys(digests).filter((name) => !(name in known));
  if (added.length > 0 && process.env['UPDATE_MIGRATION_FIXTURE'] === '1') {
    for (const name of added) known[name] = digests[name]!;
    fs.mkdirSync(path.dirname(FIXTURE), { recursive: true });
    fs.writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 2)}\n`);
  }
  for (const [name, expected] of Object.entries(known)) {
    assert.ok(name in digests, `${dialect}: migration ${name} no longer runs; a released migration is never removed or renamed`);
    assert.equal(digests[name], expected, `${dialect}: migration ${name} now runs different SQL than when it was released. Leave it as it was and append a new migration that makes the change`);
  }
  const missing = Object.keys(digests).filter((name) => !(name in known));
  assert.deepEqual(missing, [], `${dialect}: migrations not in ${path.relative(process.cwd(), FIXTURE)} yet: run this test once with UPDATE_MIGRATION_FIXTURE=1 to add them`);
}

/** Tables and their columns as src/store/schema.ts's `Database` interface declares them. */
function declaredSchema(): Map<string, string[]> {
  const source = ts.createSourceFile(SCHEMA_SOURCE, fs.readFileSync(SCHEMA_SOURCE, 'utf8'), ts.ScriptTarget.Latest);
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  source.forEachChild((node) => { if (ts.isInterfaceDeclaration(node)) interfaces.set(node.name.text, node); });
  const propertyNames = (node: ts.InterfaceDeclaration) => node.members.filter(ts.isPropertySignature).map((member) => member.name.getText(source));
  const tables = new Map<string, string[]>();
  for (const member of interfaces.get('Database')!.members.filter(ts.isPropertySignature)) {
    const tableInterface = interfaces.get(member.type!.getText(source));
    assert.ok(tableInterface, `schema.ts declares the interface of table ${member.name.getText(source)}`);
    tables.set(member.name.getText(source), propertyNames(tableInterface).sort());
  }
  return tables;
}

/** Tables the application reads and writes but that schema.ts leaves out: the migrator's own, and PostgreSQL's raw-SQL ones. */
const UNDECLARED_TABLES = new Set([MIGRATION_TABLE, `${MIGRATION_TABLE}_lock`, 'config_version', 'commit_barrier']);

function assertSchemaMatches(actual: Map<string, string[]>, dialect: SqlDialect): void {
  const tables = new Map([...actual].filter(([table]) => !UNDECLARED_TABLES.has(table)).map(([table, columns]) => [table, [...columns].sort()]));
  const declared = declaredSchema();
  assert.deepEqual([...tables.keys()].sort(), [...declared.keys()].sort(), `${dialect}: the migrated tables are those schema.ts declares`);
  for (const [table, columns] of declared) assert.deepEqual(tables.get(table), columns, `${dialect}: the columns of ${table}`);
}

describe('migrations run the SQL they were released with', () => {
  it('on SQLite', async () => {
    const recorder = statementRecorder();
    const { db, sqlite, dispose } = scratchSqlite('migration-sql', { log: recorder.log });
    try {
      checkAgainstFixture('sqlite', await migrationDigests(db, 'sqlite', recorder.statements));
      const tables = sqlite.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").all() as Array<{ name: string }>;
      assertSchemaMatches(new Map(tables.map(({ name }) => [name, (sqlite.prepare(`pragma table_info(${JSON.stringify(name)})`).all() as Array<{ name: string }>).map((c) => c.name)])), 'sqlite');
    } finally {
      await dispose();
    }
  });

  describe('on PostgreSQL', { skip }, () => {
    let database: TestDatabase | undefined;
    after(async () => { await database?.drop(); });
    it('every migration, and the schema it leaves', async () => {
      database = await createTestDatabase('migration_sql');
      const recorder = statementRecorder();
      const db = kyselyOnPostgres(database.url, { log: recorder.log });
      try {
        checkAgainstFixture('postgres', await migrationDigests(db, 'postgres', recorder.statements));
      } finally {
        await db.destroy();
      }
      const columns = await database.query<{ table_name: string; column_name: string }>("select table_name, column_name from information_schema.columns where table_schema = 'public'");
      const tables = new Map<string, string[]>();
      for (const row of columns.rows) tables.set(row.table_name, [...(tables.get(row.table_name) ?? []), row.column_name]);
      assertSchemaMatches(tables, 'postgres');
    });
  });
});
