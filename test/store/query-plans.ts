// Query plans for the store suite: records the statements a store runs (a Kysely plugin on its
// database) and asks the database how it would run each one, to tell a seek through an index from a
// walk over a whole table.
import {
  CompiledQuery, PostgresQueryCompiler, sql, SqliteQueryCompiler,
  type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryResult, type RootOperationNode, type UnknownRow,
} from 'kysely';
import type { KyselyStore } from '../../src/store/kysely-store.js';

/** Tables small by nature (an account's configuration), which a plan may read whole. */
const SMALL_TABLES = new Set(['webhook_subscriptions']);
/**
 * Partial indexes that hold the live rows only (Vonage requests not reported yet, Prelude
 * verifications whose webhooks may still be due: src/store/dialect-callbacks.ts), which the callback
 * sweep reads whole by design: as many rows as verifications in flight, never the table's history.
 */
const LIVE_ROW_INDEXES = new Set(['vonage_requests_open', 'prelude_verifications_open']);

/**
 * Records the statements Kysely builds and runs (not those it only builds: subqueries, queries compiled
 * ahead such as src/store/prepared-query.ts's, which then run as raw SQL and are not recorded).
 */
export class StatementRecorder implements KyselyPlugin {
  private readonly built = new Map<string, PluginTransformQueryArgs>();
  private readonly queries: PluginTransformQueryArgs[] = [];

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.built.set(args.queryId.queryId, args);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const ran = this.built.get(args.queryId.queryId);
    if (ran) this.queries.push(ran);
    return args.result;
  }

  /** The statements run, as the dialect's SQL. */
  compile(dialect: 'sqlite' | 'postgres'): CompiledQuery[] {
    const compiler = dialect === 'postgres' ? new PostgresQueryCompiler() : new SqliteQueryCompiler();
    return this.queries.map((q) => compiler.compileQuery(q.node, q.queryId));
  }
}

/**
 * The plan of `statement` (not run) and what in it walks more than the rows the statement is after:
 * a table read whole, or rows sorted rather than read in index order (LIMIT then stops nowhere before
 * the last of them). SQLite: `SCAN t`, `USE TEMP B-TREE FOR ORDER BY`. PostgreSQL, with sequential
 * scans and sorts priced out of reach (so that tables of a few rows do not make them look cheap): a
 * Seq Scan, a Sort, or an index scan whose condition does not seek on the index's first column.
 */
export async function explain(store: KyselyStore, statement: CompiledQuery): Promise<{ walks: string[]; text: string }> {
  if (store.dialect === 'sqlite') {
    const { rows } = await store.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${statement.sql}`, [...statement.parameters]));
    const walks = rows.map((r) => r.detail).filter((d) => (/^SCAN (\S+)/.test(d) && !SMALL_TABLES.has(d.split(' ')[1]!) && !LIVE_ROW_INDEXES.has(/USING INDEX (\S+)/.exec(d)?.[1] ?? ''))
      || d.startsWith('USE TEMP B-TREE FOR ORDER BY'));
    return { walks, text: rows.map((r) => r.detail).join('\n') };
  }
  const { plan, indexes } = await store.db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    await sql`set local enable_sort = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(CompiledQuery.raw(`explain (format json) ${statement.sql}`, [...statement.parameters]));
    const indexes = await sql<{ name: string; table: string; lead: string }>`select c.relname as name, t.relname as table, a.attname as lead from pg_index i
      join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]`.execute(trx);
    return { plan: rows[0]!['QUERY PLAN'][0]!.Plan, indexes: new Map(indexes.rows.map((r) => [r.name, r])) };
  });
  const walks: string[] = [];
  const visit = (node: PlanNode) => {
    const type = node['Node Type'];
    const index = indexes.get(node['Index Name'] ?? '');
    const table = index?.table ?? node['Relation Name'] ?? '';
    const seeks = index !== undefined && node['Index Cond']?.includes(`(${index.lead} `) === true;
    if (type === 'Sort') walks.push('Sort');
    else if (type === 'Seq Scan' && !SMALL_TABLES.has(table)) walks.push(`Seq Scan on ${table}`);
    else if (/Index (Only )?Scan$/.test(type) && !seeks && !SMALL_TABLES.has(table) && !LIVE_ROW_INDEXES.has(index?.name ?? '')) walks.push(`${type} using ${index?.name} without seeking`);
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(plan);
  return { walks, text: JSON.stringify(plan, null, 1) };
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}
