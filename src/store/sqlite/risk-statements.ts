// The risk score's counters and decisions on SQLite, on statements prepared once on better-sqlite3
// (hot-path.ts): a send reads its counters without Kysely (whose use of the connection would commit
// the hot path's shared transaction early), and counts its hits and records its decision inside the
// PIN's own unit (pin-statements.ts), so that scoring a send adds no transaction and no commit. Its
// dozen counters are read by one statement and hit by one (measured: a statement per counter cost
// about twice as much, BENCHMARKS.md), each prepared once per number of counters.
import type BetterSqlite3 from 'better-sqlite3';
import { rowOfDecision, type RiskCounterRead, type RiskHotPath, type RiskWrite } from '../risk-store.js';
import type { Database } from '../schema.js';
import type { SqliteHotPath } from './hot-path.js';

export class SqliteRiskStatements implements RiskHotPath {
  /** By number of counters: one scalar subquery per counter, each a range of the primary key (application, counter, bucket). */
  private readonly sums = new Map<number, BetterSqlite3.Statement<unknown[], (number | null)[]>>();
  /** By number of counters: one upsert of them all. */
  private readonly hitsOf = new Map<number, BetterSqlite3.Statement<unknown[]>>();
  private readonly insertDecision: BetterSqlite3.Statement<Database['risk_decisions']>;

  constructor(private readonly hot: SqliteHotPath) {
    this.insertDecision = hot.connection.prepare(`insert into risk_decisions (id, account_id, application_id, pin_id, kind, created_at, destination, country, score, threshold, decision, mode, safe_listed, signals)
      values (:id, :account_id, :application_id, :pin_id, :kind, :created_at, :destination, :country, :score, :threshold, :decision, :mode, :safe_listed, :signals)`);
  }

  private sum(count: number) {
    let statement = this.sums.get(count);
    if (!statement) {
      const one = '(select sum(hits) from risk_counters where application_id = ? and counter = ? and bucket_start > ?)';
      statement = this.hot.connection.prepare<unknown[], (number | null)[]>(`select ${Array.from({ length: count }, () => one).join(', ')}`).raw();
      this.sums.set(count, statement);
    }
    return statement;
  }

  private hit(count: number) {
    let statement = this.hitsOf.get(count);
    if (!statement) {
      statement = this.hot.connection.prepare(`insert into risk_counters (application_id, counter, bucket_start, hits) values ${Array.from({ length: count }, () => '(?, ?, ?, 1)').join(', ')}
        on conflict (application_id, counter, bucket_start) do update set hits = hits + 1`);
      this.hitsOf.set(count, statement);
    }
    return statement;
  }

  /**
   * The counters before a send. Read inside the hot path's shared transaction when one is open (the
   * hits of this turn's other sends included): the send awaits durable() before it answers anyway.
   */
  read(applicationId: string, reads: readonly RiskCounterRead[]): Map<string, number> | Promise<Map<string, number>> {
    if (reads.length === 0) return new Map();
    return this.hot.readBeforeWrite(() => {
      const sums = this.sum(reads.length).get(reads.flatMap((r) => [applicationId, r.counter, r.since]))!;
      return new Map(reads.map((r, i) => [r.counter, sums[i] ?? 0]));
    });
  }

  /** The hits (distinct counters) and the decision of `write`; must run inside a write transaction (hot-path.ts), the PIN's when it sends one. */
  apply(write: RiskWrite): void {
    if (write.hits.length > 0) this.hit(write.hits.length).run(write.hits.flatMap((h) => [write.applicationId, h.counter, h.bucketStart]));
    if (write.decision) this.insertDecision.run(rowOfDecision(write.decision));
  }

  /** `write` as a unit of its own (a blocked send, a resend, a verification). */
  write(write: RiskWrite): void | Promise<void> {
    return this.hot.write(() => this.apply(write));
  }
}
