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
import { rowOfDecision, type RiskCounterHit, type RiskCounterRead, type RiskHotPath, type RiskWrite } from '../risk-store.js';
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

/** Rows per upsert of the held hits: n rows run as the largest that fit, then the next (prepared once each). */
const UPSERT_SIZES = [256, 64, 16, 4, 1];

type DecisionRow = Database['risk_decisions'];

/**
 * The most counters of the recent window held in memory, all applications together: about 125 MB
 * (a send to a new number adds five to seven). Past it the oldest bucket is forgotten first: under a
 * flood of new numbers (a pumping attack at a thousand sends a second) the velocity signals look back
 * over less than the hour instead of the process running out of memory (docs/security.md).
 */
export const RECENT_COUNTERS_MAX = 1_000_000;

/**
 * Hits per counter and bucket. Each counter's are a flat list [bucket, hits, bucket, hits, ...], so
 * that a read is one lookup and a scan of the few buckets the counter was hit in; each bucket lists
 * the counters hit in it, so that forgetting the bucket visits only those.
 */
class BucketedCounts {
  private readonly counters = new Map<string, number[]>();
  /** Per bucket start, the counters hit in it (a counter may be listed twice after an undo). */
  private readonly byBucket = new Map<number, string[]>();
  /** (counter, bucket) pairs held. */
  size = 0;

  /** Adds `hits` (-1: takes one back, never below what was counted) to `counter` in `bucket`. */
  add(counter: string, bucket: number, hits: number): void {
    const list = this.counters.get(counter);
    if (list) {
      for (let i = list.length - 2; i >= 0; i -= 2) {
        if (list[i] !== bucket) continue;
        const total = list[i + 1]! + hits;
        if (total > 0) {
          list[i + 1] = total;
          return;
        }
        list.splice(i, 2);
        this.size -= 1;
        if (list.length === 0) this.counters.delete(counter);
        return;
      }
    }
    // A hit taken back from a bucket already forgotten (purged, or past the bound) has nothing to take.
    if (hits <= 0) return;
    if (list) list.push(bucket, hits);
    else this.counters.set(counter, [bucket, hits]);
    let listed = this.byBucket.get(bucket);
    if (!listed) this.byBucket.set(bucket, (listed = []));
    listed.push(counter);
    this.size += 1;
  }

  /** The hits of `counter` in the buckets that start after `since`. */
  sum(counter: string, since: number): number {
    const list = this.counters.get(counter);
    if (!list) return 0;
    let hits = 0;
    for (let i = 0; i < list.length; i += 2) if (list[i]! > since) hits += list[i + 1]!;
    return hits;
  }

  /** The start of the newest bucket held. */
  get newest(): number | undefined {
    let newest: number | undefined;
    for (const bucket of this.byBucket.keys()) if (newest === undefined || bucket > newest) newest = bucket;
    return newest;
  }

  /** The start of the oldest bucket held. */
  get oldest(): number | undefined {
    let oldest: number | undefined;
    for (const bucket of this.byBucket.keys()) if (oldest === undefined || bucket < oldest) oldest = bucket;
    return oldest;
  }

  dropBefore(before: number): void {
    for (const [bucket, listed] of this.byBucket) {
      if (bucket >= before) continue;
      this.byBucket.delete(bucket);
      for (const counter of listed) {
        const list = this.counters.get(counter);
        if (!list) continue;
        let kept = 0;
        for (let i = 0; i < list.length; i += 2) {
          if (list[i]! < before) continue;
          list[kept] = list[i]!;
          list[kept + 1] = list[i + 1]!;
          kept += 2;
        }
        this.size -= (list.length - kept) / 2;
        if (kept === 0) this.counters.delete(counter);
        else list.length = kept;
      }
    }
  }
}

/**
 * A counter of risk_counters: its hits per bucket from the bucket after `since` on (oldest first) and
 * their total. Each counter is read over one window, so `since` only moves on: a read drops the
 * buckets it has passed from the front, and the total is kept rather than summed per read.
 */
class StoredCounter {
  total = 0;
  constructor(public since: number, readonly buckets: Map<number, number>) {
    for (const hits of buckets.values()) this.total += hits;
  }

  add(bucket: number, hits: number): void {
    if (bucket <= this.since) return;
    this.buckets.set(bucket, (this.buckets.get(bucket) ?? 0) + hits);
    this.total += hits;
  }

  /** The hits after `since` (not before this.since: the caller reads the table again for that). */
  sumSince(since: number): number {
    if (since > this.since) {
      this.since = since;
      for (const [bucket, hits] of this.buckets) {
        if (bucket > since) break;
        this.buckets.delete(bucket);
        this.total -= hits;
      }
    }
    return this.total;
  }

  dropBefore(before: number): void {
    for (const [bucket, hits] of this.buckets) {
      if (bucket >= before) continue;
      this.buckets.delete(bucket);
      this.total -= hits;
    }
  }
}

/**
 * One application's counters: the recent window's, and those of risk_counters read so far, with the
 * hits of the open transaction counted in (and taken back if it is undone); and the hits not written
 * to the tables yet.
 */
class ApplicationCounters {
  constructor(readonly applicationId: string) {}
  readonly recent = new BucketedCounts();
  readonly stored = new Map<string, StoredCounter>();
  /** The open transaction's hits, counted already. */
  open: RiskCounterHit[] = [];
  /** Committed hits held back from the tables (HELD_HITS_WRITE_MS), a commit's at a time, oldest first. */
  held: RiskCounterHit[][] = [];
  /** Held hits being written by the open transaction: held again if it does not commit. */
  writing: RiskCounterHit[][] = [];

  /** Counts `hit` (`hits` -1: takes it back) in memory; a counter of risk_counters only once it has been read. */
  count(hit: RiskCounterHit, hits: 1 | -1): void {
    if (hit.recent === true) {
      this.recent.add(hit.counter, hit.bucketStart, hits);
      return;
    }
    this.stored.get(hit.counter)?.add(hit.bucketStart, hits);
  }

  /** The open transaction rolled back: its hits taken back, what it was writing held again. */
  rollBack(): void {
    for (const hit of this.open) this.count(hit, -1);
    this.open = [];
    this.holdAgain();
  }

  holdAgain(): void {
    this.held = [...this.writing, ...this.held];
    this.writing = [];
  }
}

export class SqliteRiskStatements implements RiskHotPath, FoldedWrites {
  /** By UPSERT_SIZES: the upsert of that many counter rows, adding their hits. */
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
      // A list of the counters hit, once per hit (writeHeld), or an object of their hits (migration 0037).
      const logged = JSON.parse(row.counters) as string[] | Record<string, number>;
      if (Array.isArray(logged)) for (const counter of logged) app.recent.add(counter, Number(row.bucket_start), 1);
      else for (const [counter, hits] of Object.entries(logged)) app.recent.add(counter, Number(row.bucket_start), hits);
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

  /** The hits of a counter of risk_counters since `since`: read once, then from memory. */
  private storedSum(applicationId: string, app: ApplicationCounters, counter: string, since: number): number {
    const entry = app.stored.get(counter);
    if (entry && entry.since <= since) return entry.sumSince(since);
    const buckets = new Map(this.readStored.all(applicationId, counter, since).map(([bucket, hits]) => [Number(bucket), Number(hits)]));
    // Hits not written to the table yet count as the rows they will be (those being written are in
    // the rows read: this connection reads its open transaction's writes).
    for (const hit of [...app.held.flat(), ...app.open]) {
      if (hit.counter === counter && hit.bucketStart > since) buckets.set(hit.bucketStart, (buckets.get(hit.bucketStart) ?? 0) + 1);
    }
    const read = new StoredCounter(since, new Map([...buckets].sort(([a], [b]) => a - b)));
    app.stored.set(counter, read);
    return read.total;
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
   * The counters before a send, with the hits of the open transaction's units (not committed yet:
   * the send awaits durable() before it answers anyway).
   */
  read(applicationId: string, reads: readonly RiskCounterRead[]): Map<string, number> | Promise<Map<string, number>> {
    if (reads.length === 0) return new Map();
    return this.hot.readBeforeWrite(() => {
      const app = this.application(applicationId);
      const counts = new Map<string, number>();
      for (const r of reads) counts.set(r.counter, r.recent === true ? app.recent.sum(r.counter, r.since) : this.storedSum(applicationId, app, r.counter, r.since));
      return counts;
    });
  }

  /** Counts the hits and the decision of `write` with the unit of work running it (hot-path.ts), the PIN's when it sends one. */
  apply(write: RiskWrite): void {
    const app = this.application(write.applicationId);
    this.touched.add(app);
    const before = app.open.length;
    for (const hit of write.hits) {
      app.count(hit, 1);
      app.open.push(hit);
    }
    const decision = write.decision && rowOfDecision(write.decision);
    if (decision) this.pendingDecisions.push(decision);
    this.hot.onUnitUndone(() => {
      for (const hit of app.open.splice(before)) app.count(hit, -1);
      if (decision) this.pendingDecisions = this.pendingDecisions.filter((d) => d !== decision);
    });
  }

  /** `write` as a unit of its own (a blocked send, a resend, a verification). */
  write(write: RiskWrite): void | Promise<void> {
    return this.hot.write(() => this.apply(write));
  }

  /** Before the commit: the decisions are written; the hits are held once it has committed, and written later (writeHeld). */
  flush(): void {
    const decisions = this.pendingDecisions;
    this.pendingDecisions = [];
    for (const decision of decisions) this.insertDecision.run(decision);
  }

  committed(): void {
    let held = false;
    for (const app of this.touched) {
      if (app.open.length === 0) continue;
      app.held.push(app.open);
      app.open = [];
      held = true;
    }
    this.touched.clear();
    for (const app of this.writingApps) app.writing = [];
    this.writingApps.clear();
    this.keepRecentBounded();
    if (held) this.scheduleWrite();
  }

  discard(): void {
    for (const app of this.touched) app.rollBack();
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
   * per bucket (the list of the counters hit, once per hit: nothing to add up, and a counter is hit
   * about once a second anyway), the others as one upsert per counter and bucket.
   */
  writeHeld(): void {
    const rows: (string | number)[] = [];
    for (const app of this.all().values()) {
      if (app.held.length === 0) continue;
      const { applicationId } = app;
      const logged = new Map<number, string[]>();
      const stored = new Map<number, Map<string, number>>();
      for (const hits of app.held) {
        for (const { counter, bucketStart, recent } of hits) {
          if (recent === true) {
            let log = logged.get(bucketStart);
            if (!log) logged.set(bucketStart, (log = []));
            log.push(counter);
            continue;
          }
          let counts = stored.get(bucketStart);
          if (!counts) stored.set(bucketStart, (counts = new Map()));
          counts.set(counter, (counts.get(counter) ?? 0) + 1);
        }
      }
      for (const [bucket, log] of logged) this.appendRecent.run(bucket, applicationId, JSON.stringify(log));
      for (const [bucket, counts] of stored) for (const [counter, hits] of counts) rows.push(applicationId, counter, bucket, hits);
      app.writing.push(...app.held);
      app.held = [];
      this.writingApps.add(app);
      this.hot.onUnitUndone(() => app.holdAgain());
    }
    for (let at = 0; at < rows.length;) {
      const size = UPSERT_SIZES.find((n) => n * 4 <= rows.length - at)!;
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
        for (const entry of app.stored.values()) entry.dropBefore(storedBefore);
      }
    });
  }
}
