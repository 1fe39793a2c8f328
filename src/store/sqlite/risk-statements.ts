// The risk score's counters and decisions on SQLite, on statements prepared once on better-sqlite3
// (hot-path.ts): a send counts its hits and records its decision with the PIN's own unit
// (pin-statements.ts), so that scoring it adds no transaction and no commit. A unit's hits are kept
// here while its transaction is open (hot-path.ts, FoldedWrites), added to what a read finds, and
// taken back if it is undone; its decision is written just before the transaction commits.
//
// SQLite serves one process, so every counter is kept in memory and a send reads its dozen without
// a statement, and the tables only keep what a restart rebuilds the memory from. Their rows are not
// written by the commits of the sends: committed hits are held back and written in a unit of their
// own at most HELD_HITS_WRITE_MS later, all of that second's together, so that a counter every send
// hits (an application's sends) costs one upsert a second rather than one per commit, and the
// commits of the sends write no page of these tables. Those of the recent window (RiskCounterHit's
// `recent`: a number and its blocks of 10 to 10,000, the client's address and device, a prefix's
// verifications) live only in memory and in risk_recent_hits, one row per application and bucket per
// write, appended at the end of the table and purged past the hour: as rows of a table keyed by
// them, the five a send to a new number hits would each be a page at a random place. The others (an
// application's and a country's sends and verifications over a day and 30 days) are rows of
// risk_counters, each cached on its first read and kept up to date by the commits that change it.
import type BetterSqlite3 from 'better-sqlite3';
import { rowOfDecision, type RiskCounterRead, type RiskHotPath, type RiskWrite } from '../risk-store.js';
import type { Database } from '../schema.js';
import type { FoldedWrites, SqliteHotPath } from './hot-path.js';

/**
 * How long committed hits are held back from the tables: their rows are written in a unit of their
 * own at most this long after their commit (and when the store closes), so that a second's sends
 * write each of their counters once, as one row of the log per application and bucket, and none of
 * their commits writes the pages of the score's tables. What is held is counted in memory as soon
 * as it commits; a crash loses at most this long of counts (docs/security.md), never a decision.
 */
export const HELD_HITS_WRITE_MS = 1000;

/** Rows per statement of a flush: a flush of n rows runs the largest that fit, then the next (prepared once each). */
const FLUSH_SIZES = [256, 64, 16, 4, 1];

type DecisionRow = Database['risk_decisions'];

/**
 * The most counters of the recent window held in memory, all applications together: about 125 MB
 * (a send to a new number adds five to seven). Past it the oldest bucket is forgotten first: under a
 * flood of new numbers (a pumping attack at a thousand sends a second) the velocity signals look back
 * over less than the hour instead of the process running out of memory (docs/security.md).
 */
export const RECENT_COUNTERS_MAX = 1_000_000;

/** Hits per bucket and counter. */
class BucketedCounts {
  /** Per bucket start, in the order they were first hit (which is mostly time order). */
  private buckets = new Map<number, Map<string, number>>();
  /** Counters held, over every bucket. */
  size = 0;

  add(bucket: number, counter: string, hits: number): void {
    let counts = this.buckets.get(bucket);
    if (!counts) this.buckets.set(bucket, (counts = new Map()));
    const before = counts.size;
    const total = (counts.get(counter) ?? 0) + hits;
    if (total === 0) counts.delete(counter);
    else counts.set(counter, total);
    this.size += counts.size - before;
  }

  /** The start of the newest bucket held. */
  get newest(): number | undefined {
    let newest: number | undefined;
    for (const bucket of this.buckets.keys()) if (newest === undefined || bucket > newest) newest = bucket;
    return newest;
  }

  /** The start of the oldest bucket held. */
  get oldest(): number | undefined {
    let oldest: number | undefined;
    for (const bucket of this.buckets.keys()) if (oldest === undefined || bucket < oldest) oldest = bucket;
    return oldest;
  }

  /** The hits of `counter` in the buckets that start after `since`. */
  sum(counter: string, since: number): number {
    let hits = 0;
    for (const [bucket, counts] of this.buckets) if (bucket > since) hits += counts.get(counter) ?? 0;
    return hits;
  }

  entries(): Iterable<[number, Map<string, number>]> {
    return this.buckets;
  }

  get empty(): boolean {
    return this.buckets.size === 0;
  }

  dropBefore(before: number): void {
    for (const [bucket, counts] of this.buckets) {
      if (bucket >= before) continue;
      this.buckets.delete(bucket);
      this.size -= counts.size;
    }
  }
}

/** A counter of risk_counters as committed: its hits per bucket, from the bucket after `since` on (what was read of it). */
interface StoredCounter {
  since: number;
  buckets: Map<number, number>;
}

/** Hits committed together (one commit's, of one application), and which of their counters are of the recent window. */
interface CommittedHits {
  hits: BucketedCounts;
  recent: Set<string>;
}

/**
 * One application's counters: as committed (the recent window's, and those of risk_counters read so
 * far), the open transaction's hits, and the committed hits not written to the tables yet.
 */
class ApplicationCounters {
  constructor(readonly applicationId: string) {}
  readonly recent = new BucketedCounts();
  readonly stored = new Map<string, StoredCounter>();
  pending = new BucketedCounts();
  /** Which of the pending counters are of the recent window. */
  pendingRecent = new Set<string>();
  /** The pending hits as they were when their transaction began to commit: counted once it has. */
  committing: CommittedHits | undefined;
  /** Committed hits held back from the tables (HELD_HITS_WRITE_MS), oldest first. */
  held: CommittedHits[] = [];
  /** Held hits being written by the open transaction: held again if it does not commit. */
  writing: CommittedHits[] = [];

  forget(): void {
    this.pending = new BucketedCounts();
    this.pendingRecent = new Set();
    this.committing = undefined;
    this.holdAgain();
  }

  holdAgain(): void {
    this.held = [...this.writing, ...this.held];
    this.writing = [];
  }
}

export class SqliteRiskStatements implements RiskHotPath, FoldedWrites {
  /** By FLUSH_SIZES: the upsert of that many counter rows, adding their hits. */
  private readonly upserts = new Map<number, BetterSqlite3.Statement<unknown[]>>();
  private readonly readStored: BetterSqlite3.Statement<[string, string, number], [number, number]>;
  private readonly insertDecision: BetterSqlite3.Statement<DecisionRow>;
  private readonly appendRecent: BetterSqlite3.Statement<[number, string, string]>;
  private readonly purgeRecent: BetterSqlite3.Statement<[number]>;
  private readonly purgeStored: BetterSqlite3.Statement<[number]>;
  /** Per application (the recent window's counters rebuilt from risk_recent_hits on first use). */
  private applications: Map<string, ApplicationCounters> | undefined;
  /** The applications the open transaction hit. */
  private readonly touched = new Set<ApplicationCounters>();
  private pendingDecisions: DecisionRow[] = [];
  /** The applications whose held hits the open transaction writes. */
  private readonly writingApps = new Set<ApplicationCounters>();
  private writeTimer: NodeJS.Timeout | undefined;
  private closed = false;

  /** `recentMax`: RECENT_COUNTERS_MAX, or fewer for a test. */
  constructor(private readonly hot: SqliteHotPath, private readonly recentMax = RECENT_COUNTERS_MAX) {
    const c = hot.connection;
    this.readStored = c.prepare<[string, string, number], [number, number]>('select bucket_start, hits from risk_counters where application_id = ? and counter = ? and bucket_start > ?').raw();
    this.insertDecision = c.prepare(`insert into risk_decisions (id, account_id, application_id, pin_id, kind, created_at, destination, country, score, threshold, decision, mode, safe_listed, signals, price_micros, price_currency)
      values (:id, :account_id, :application_id, :pin_id, :kind, :created_at, :destination, :country, :score, :threshold, :decision, :mode, :safe_listed, :signals, :price_micros, :price_currency)`);
    this.appendRecent = c.prepare('insert into risk_recent_hits (bucket_start, application_id, counters) values (?, ?, ?)');
    this.purgeRecent = c.prepare('delete from risk_recent_hits where bucket_start < ?');
    this.purgeStored = c.prepare('delete from risk_counters where bucket_start < ?');
    hot.foldIntoCommit(this);
  }

  /** Every application's counters: after a restart, the recent window's rebuilt from the log (what purge left of it). */
  private all(): Map<string, ApplicationCounters> {
    if (this.applications) return this.applications;
    const applications = new Map<string, ApplicationCounters>();
    const rows = this.hot.connection.prepare<[], { bucket_start: number; application_id: string; counters: string }>('select bucket_start, application_id, counters from risk_recent_hits').iterate();
    for (const row of rows) {
      let app = applications.get(row.application_id);
      if (!app) applications.set(row.application_id, (app = new ApplicationCounters(row.application_id)));
      for (const [counter, hits] of Object.entries(JSON.parse(row.counters) as Record<string, number>)) app.recent.add(Number(row.bucket_start), counter, hits);
    }
    this.applications = applications;
    this.keepRecentBounded();
    return applications;
  }

  /** Forgets the oldest buckets of the recent window, every application's, while more than `recentMax` counters are held. */
  private keepRecentBounded(): void {
    const apps = [...(this.applications?.values() ?? [])];
    let held = apps.reduce((sum, app) => sum + app.recent.size, 0);
    while (held > this.recentMax) {
      const starts = apps.map((app) => app.recent.oldest).filter((b): b is number => b !== undefined);
      const oldest = Math.min(...starts);
      // The newest bucket is kept whatever its size: it is the one being counted.
      if (starts.length === 0 || apps.every((app) => app.recent.newest === undefined || app.recent.newest <= oldest)) return;
      for (const app of apps) app.recent.dropBefore(oldest + 1);
      held = apps.reduce((sum, app) => sum + app.recent.size, 0);
    }
  }

  private application(applicationId: string): ApplicationCounters {
    const applications = this.all();
    let app = applications.get(applicationId);
    if (!app) applications.set(applicationId, (app = new ApplicationCounters(applicationId)));
    return app;
  }

  /** The committed hits of a counter of risk_counters since `since`: read once, then from memory. */
  private storedSum(applicationId: string, app: ApplicationCounters, counter: string, since: number): number {
    let entry = app.stored.get(counter);
    if (!entry || entry.since > since) {
      entry = { since, buckets: new Map(this.readStored.all(applicationId, counter, since).map(([bucket, hits]) => [Number(bucket), Number(hits)])) };
      // Committed hits not written to the table yet count as the rows they will be (those being written
      // are in the rows read: this connection reads its open transaction's writes).
      for (const committed of app.held) {
        for (const [bucket, counts] of committed.hits.entries()) {
          const hits = counts.get(counter);
          if (hits !== undefined && bucket > since) entry.buckets.set(bucket, (entry.buckets.get(bucket) ?? 0) + hits);
        }
      }
      app.stored.set(counter, entry);
    }
    let hits = 0;
    for (const [bucket, count] of entry.buckets) if (bucket > since) hits += count;
    return hits;
  }

  private upsert(count: number) {
    let statement = this.upserts.get(count);
    if (!statement) {
      statement = this.hot.connection.prepare(`insert into risk_counters (application_id, counter, bucket_start, hits) values ${Array.from({ length: count }, () => '(?, ?, ?, ?)').join(', ')}
        on conflict (application_id, counter, bucket_start) do update set hits = hits + excluded.hits`);
      this.upserts.set(count, statement);
    }
    return statement;
  }

  /**
   * The counters before a send, with the hits of the open transaction's units (not written yet: the
   * send awaits durable() before it answers anyway).
   */
  read(applicationId: string, reads: readonly RiskCounterRead[]): Map<string, number> | Promise<Map<string, number>> {
    if (reads.length === 0) return new Map();
    return this.hot.readBeforeWrite(() => {
      const app = this.application(applicationId);
      return new Map(reads.map((r) => {
        const committed = r.recent === true ? app.recent.sum(r.counter, r.since) : this.storedSum(applicationId, app, r.counter, r.since);
        return [r.counter, committed + app.pending.sum(r.counter, r.since)];
      }));
    });
  }

  /** Counts the hits and the decision of `write` with the unit of work running it (hot-path.ts), the PIN's when it sends one. */
  apply(write: RiskWrite): void {
    const app = this.application(write.applicationId);
    this.touched.add(app);
    for (const h of write.hits) {
      app.pending.add(h.bucketStart, h.counter, 1);
      if (h.recent === true) app.pendingRecent.add(h.counter);
    }
    const decision = write.decision && rowOfDecision(write.decision);
    if (decision) this.pendingDecisions.push(decision);
    this.hot.onUnitUndone(() => {
      for (const h of write.hits) app.pending.add(h.bucketStart, h.counter, -1);
      if (decision) this.pendingDecisions = this.pendingDecisions.filter((d) => d !== decision);
    });
  }

  /** `write` as a unit of its own (a blocked send, a resend, a verification). */
  write(write: RiskWrite): void | Promise<void> {
    return this.hot.write(() => this.apply(write));
  }

  /** Before the commit: the decisions are written; the hits are counted once it has committed, and written later (writeHeld). */
  flush(): void {
    for (const app of this.touched) {
      app.committing = { hits: app.pending, recent: app.pendingRecent };
      app.pending = new BucketedCounts();
      app.pendingRecent = new Set();
    }
    const decisions = this.pendingDecisions;
    this.pendingDecisions = [];
    for (const decision of decisions) this.insertDecision.run(decision);
  }

  committed(): void {
    let held = false;
    for (const app of this.touched) {
      const committing = app.committing;
      app.committing = undefined;
      if (!committing) continue;
      for (const [bucket, counts] of committing.hits.entries()) {
        for (const [counter, hits] of counts) {
          if (committing.recent.has(counter)) {
            app.recent.add(bucket, counter, hits);
            continue;
          }
          const entry = app.stored.get(counter);
          if (entry && bucket > entry.since) entry.buckets.set(bucket, (entry.buckets.get(bucket) ?? 0) + hits);
        }
      }
      app.held.push(committing);
      held = true;
    }
    this.touched.clear();
    for (const app of this.writingApps) app.writing = [];
    this.writingApps.clear();
    this.keepRecentBounded();
    if (held) this.scheduleWrite();
  }

  discard(): void {
    for (const app of this.touched) app.forget();
    this.touched.clear();
    for (const app of this.writingApps) app.holdAgain();
    this.writingApps.clear();
    this.pendingDecisions = [];
  }

  /** Writes the held hits within HELD_HITS_WRITE_MS (the timer is unref'd: close() writes what is left). */
  private scheduleWrite(): void {
    if (this.writeTimer || this.closed) return;
    this.writeTimer = setTimeout(() => {
      this.writeTimer = undefined;
      // A unit that fails (a full disk) holds its hits again: they are tried again later.
      Promise.resolve().then(() => this.hot.write(() => this.writeHeld())).catch(() => this.scheduleWrite());
    }, HELD_HITS_WRITE_MS);
    this.writeTimer.unref();
  }

  /**
   * Inside a unit: writes every application's held hits, the recent window's as one row of the log
   * per bucket, the others as one upsert per counter and bucket.
   */
  writeHeld(): void {
    const rows: (string | number)[] = [];
    for (const app of this.all().values()) {
      if (app.held.length === 0) continue;
      const { applicationId } = app;
      const logged = new Map<number, Record<string, number>>();
      const stored = new BucketedCounts();
      for (const committed of app.held) {
        for (const [bucket, counts] of committed.hits.entries()) {
          let log = logged.get(bucket);
          for (const [counter, hits] of counts) {
            if (!committed.recent.has(counter)) {
              stored.add(bucket, counter, hits);
              continue;
            }
            if (!log) logged.set(bucket, (log = {}));
            log[counter] = (log[counter] ?? 0) + hits;
          }
        }
      }
      for (const [bucket, log] of logged) this.appendRecent.run(bucket, applicationId, JSON.stringify(log));
      for (const [bucket, counts] of stored.entries()) for (const [counter, hits] of counts) rows.push(applicationId, counter, bucket, hits);
      app.writing.push(...app.held);
      app.held = [];
      this.writingApps.add(app);
      this.hot.onUnitUndone(() => app.holdAgain());
    }
    for (let at = 0; at < rows.length;) {
      const size = FLUSH_SIZES.find((n) => n * 4 <= rows.length - at)!;
      this.upsert(size).run(rows.slice(at, at + size * 4));
      at += size * 4;
    }
  }

  /** The store closes: the held hits are written now, and none are held from now on. */
  close(): void | Promise<void> {
    this.closed = true;
    clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    if (!this.applications || ![...this.applications.values()].some((app) => app.held.length > 0)) return;
    return this.hot.write(() => this.writeHeld());
  }

  /** Deletes the counters' buckets that started before `storedBefore` (the recent window's before `recentBefore`), in memory and on disk. */
  purge(storedBefore: number, recentBefore: number): void | Promise<void> {
    return this.hot.write(() => {
      this.purgeStored.run(storedBefore);
      this.purgeRecent.run(recentBefore);
      for (const app of this.all().values()) {
        app.recent.dropBefore(recentBefore);
        for (const entry of app.stored.values()) for (const bucket of entry.buckets.keys()) if (bucket < storedBefore) entry.buckets.delete(bucket);
      }
    });
  }
}
