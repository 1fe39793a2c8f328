// Queries of the hot paths (verify, send, authentication), built and compiled by Kysely once per store
// instead of on every call. Kysely builds an immutable tree of objects for a query and compiles it to
// SQL each time it runs; on a verify that was about a fifth of the CPU, for a dozen queries whose SQL
// never changes, only their values. A PreparedQuery is written like any Kysely query, with `param(name)`
// where a value varies; the first run compiles it, later runs only substitute the values.
import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';
import { named } from './postgres/named-statements.js';
import type { Database } from './schema.js';

/** Marks a parameter in the compiled query's parameter list; never a value a caller could send. */
const MARK = '\u0000twofa-param\u0000';

export type ParamOf<P> = <K extends keyof P & string>(name: K) => P[K];

interface Compiled<P> {
  sql: string;
  /** For each parameter of the SQL: the name of a caller's value, or a constant of the query itself. */
  slots: ({ name: keyof P & string } | { value: unknown })[];
}

export class PreparedQuery<P extends object, Row> {
  private compiled: Compiled<P> | undefined;

  /**
   * `build` gets the store's Kysely instance and `param`; it must not branch on anything but its
   * arguments (it runs once). Values that change the SQL's shape (lists for `in`) cannot be params.
   */
  constructor(private readonly build: (db: Kysely<Database>, param: ParamOf<P>) => Compilable<Row>,
    /** PostgreSQL: prepare it by name on each connection (postgres/named-statements.ts; no `select *` then). */
    private readonly options: { prepareByName?: boolean } = {}) {}

  /** Runs on `db` (the store's instance or a transaction of it). */
  execute(db: Kysely<Database>, params: P): Promise<QueryResult<Row>> {
    const compiled = (this.compiled ??= this.compile(db));
    const values = compiled.slots.map((slot) => ('name' in slot ? params[slot.name] : slot.value));
    return db.executeQuery(CompiledQuery.raw(compiled.sql, values) as CompiledQuery<Row>);
  }

  async first(db: Kysely<Database>, params: P): Promise<Row | undefined> {
    return (await this.execute(db, params)).rows[0];
  }

  async all(db: Kysely<Database>, params: P): Promise<Row[]> {
    return (await this.execute(db, params)).rows;
  }

  /** Rows changed by an UPDATE, INSERT or DELETE without RETURNING. */
  async affected(db: Kysely<Database>, params: P): Promise<number> {
    return Number((await this.execute(db, params)).numAffectedRows ?? 0n);
  }

  private compile(db: Kysely<Database>): Compiled<P> {
    const param = ((name: string) => `${MARK}${name}`) as ParamOf<P>;
    const query = this.build(db, param).compile();
    const slots = query.parameters.map((value) =>
      typeof value === 'string' && value.startsWith(MARK) ? { name: value.slice(MARK.length) as keyof P & string } : { value });
    return { sql: this.options.prepareByName ? named(query.sql) : query.sql, slots };
  }
}
