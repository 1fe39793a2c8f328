// The risk score's counters and decisions on SQLite, on statements prepared once on better-sqlite3
// (hot-path.ts): a send reads its counters without Kysely (whose use of the connection would commit
// the hot path's shared transaction early), and counts its hits and records its decision inside the
// PIN's own unit (pin-statements.ts), so that scoring a send adds no transaction and no commit.
import type BetterSqlite3 from 'better-sqlite3';
import { rowOfDecision, type RiskCounterRead, type RiskWrite } from '../risk-store.js';
import type { Database } from '../schema.js';
import type { SqliteHotPath } from './hot-path.js';

export class SqliteRiskStatements {
  private readonly sum: BetterSqlite3.Statement<[string, string, number], number | null>;
  private readonly hit: BetterSqlite3.Statement<[string, string, number]>;
  private readonly insertDecision: BetterSqlite3.Statement<Database['risk_decisions']>;

  constructor(private readonly hot: SqliteHotPath) {
    const c = hot.connection;
    // Each counter is a range of the primary key (application, counter, bucket): a few rows read.
    this.sum = c.prepare<[string, string, number], number | null>('select sum(hits) from risk_counters where application_id = ? and counter = ? and bucket_start > ?').pluck() as BetterSqlite3.Statement<[string, string, number], number | null>;
    this.hit = c.prepare(`insert into risk_counters (application_id, counter, bucket_start, hits) values (?, ?, ?, 1)
      on conflict (application_id, counter, bucket_start) do update set hits = hits + 1`);
    this.insertDecision = c.prepare(`insert into risk_decisions (id, account_id, application_id, pin_id, kind, created_at, destination, country, score, threshold, decision, mode, safe_listed, signals)
      values (:id, :account_id, :application_id, :pin_id, :kind, :created_at, :destination, :country, :score, :threshold, :decision, :mode, :safe_listed, :signals)`);
  }

  /**
   * The counters before a send. Read inside the hot path's shared transaction when one is open (the
   * hits of this turn's other sends included): the send awaits durable() before it answers anyway.
   */
  read(applicationId: string, reads: readonly RiskCounterRead[]): Map<string, number> | Promise<Map<string, number>> {
    return this.hot.readBeforeWrite(() => new Map(reads.map((r) => [r.counter, this.sum.get(applicationId, r.counter, r.since) ?? 0])));
  }

  /** The hits and the decision of `write`; must run inside a write transaction (hot-path.ts), the PIN's when it sends one. */
  apply(write: RiskWrite): void {
    for (const h of write.hits) this.hit.run(write.applicationId, h.counter, h.bucketStart);
    if (write.decision) this.insertDecision.run(rowOfDecision(write.decision));
  }

  /** `write` as a unit of its own (a blocked send, a resend, a verification). */
  write(write: RiskWrite): void | Promise<void> {
    return this.hot.write(() => this.apply(write));
  }
}
