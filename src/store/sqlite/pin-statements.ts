// The verify path of a PIN on SQLite: the PIN read, and the attempt (verifyPinLimit, the counted
// attempt, then the verified mark or the lock with its webhook event, and the audit entry of the
// decision) as one synchronous transaction,
// on statements prepared once on better-sqlite3 (hot-path.ts says when they may run). Nothing is
// awaited between the statements, so the transaction holds the connection for its own few
// microseconds only, and the comparison of the candidate runs inside it.
import type BetterSqlite3 from 'better-sqlite3';
import type { Selectable } from 'kysely';
import type { AuditAppend } from '../audit-store.js';
import type { PinsTable } from '../schema.js';
import type { PinToVerify, RateLimitCheck, RateLimitOutcome } from '../store.js';
import type { SqliteAuditStatements } from './audit-statements.js';
import type { SqliteEventStatements } from './event-statements.js';
import type { SqliteHotPath } from './hot-path.js';
import type { SqliteLimitStatements } from './limit-statements.js';

type PinRow = Selectable<PinsTable>;

/** An attempt as the rows tell it (kysely-store.ts maps them to a VerifyAttempt). */
export type AttemptRows =
  | { kind: 'refused'; outcome: RateLimitOutcome & { allowed: false } }
  | { kind: 'ended'; row: PinRow | undefined }
  | { kind: 'counted'; row: PinRow; matched: boolean; verified: boolean };

export class SqlitePinStatements {
  private readonly pin: BetterSqlite3.Statement<[string, string], PinRow>;
  // Race gate: the attempt is written before the PIN is compared, so concurrent requests can neither
  // exceed pinAttempts nor all see the same "attempts left".
  private readonly countAttempt: BetterSqlite3.Statement<[string, number], PinRow>;
  // Second race gate: without multiple verifications only the request that flips verified_at wins.
  private readonly markVerifiedOnce: BetterSqlite3.Statement<[number, string]>;
  private readonly markVerified: BetterSqlite3.Statement<[number, string]>;
  private readonly lock: BetterSqlite3.Statement<[number, string]>;

  constructor(private readonly hot: SqliteHotPath, private readonly limits: SqliteLimitStatements, private readonly audit: SqliteAuditStatements, private readonly events: SqliteEventStatements) {
    const c = hot.connection;
    this.pin = c.prepare('select * from pins where id = ? and account_id = ?');
    this.countAttempt = c.prepare(`update pins set attempts_left = attempts_left - 1
      where id = ? and attempts_left > 0 and expires_at > ? and locked_at is null and (verified_at is null or allow_multiple_verifications = 1)
      returning *`);
    this.markVerifiedOnce = c.prepare('update pins set verified_at = coalesce(verified_at, ?), pin_ciphertext = null where id = ? and verified_at is null');
    this.markVerified = c.prepare('update pins set verified_at = coalesce(verified_at, ?), pin_ciphertext = null where id = ?');
    this.lock = c.prepare('update pins set locked_at = ?, pin_ciphertext = null where id = ? and attempts_left = 0 and locked_at is null');
  }

  /** The PIN as committed (durable once the caller's Store.durable() resolves). */
  get(accountId: string, pinId: string): PinRow | undefined | Promise<PinRow | undefined> {
    return this.hot.read(() => this.pin.get(pinId, accountId));
  }

  /**
   * One transaction: the limits (`limits`: empty when an external limiter counted them), the counted
   * attempt, the comparison, then the verified mark or, after the last wrong attempt, the lock; last,
   * the audit entry `audit` makes of the outcome. If anything throws, nothing of it is written.
   */
  attempt(pin: PinToVerify, now: number, limits: RateLimitCheck[], matches: (pinHash: string) => boolean, audit: (rows: AttemptRows) => AuditAppend): AttemptRows | Promise<AttemptRows> {
    return this.hot.write((): AttemptRows => {
      const rows = this.decide(pin, now, limits, matches);
      this.audit.append(audit(rows));
      return rows;
    });
  }

  private decide(pin: PinToVerify, now: number, limits: RateLimitCheck[], matches: (pinHash: string) => boolean): AttemptRows {
    const outcome = this.limits.consume(limits, now);
    if (!outcome.allowed) return { kind: 'refused', outcome };
    const row = this.countAttempt.get(pin.id, now);
    if (!row) return { kind: 'ended', row: this.pin.get(pin.id, pin.accountId) };
    if (matches(row.pin_hash)) {
      const won = (row.allow_multiple_verifications === 1 ? this.markVerified : this.markVerifiedOnce).run(now, pin.id).changes > 0;
      if (won) this.events.enqueuePinEvent('pin.verified', pin.id, now, { status: 'verified' });
      return { kind: 'counted', row, matched: true, verified: won };
    }
    if (row.attempts_left === 0 && this.lock.run(now, pin.id).changes > 0) this.events.enqueuePinEvent('pin.locked', pin.id, now, { status: 'locked' });
    return { kind: 'counted', row, matched: false, verified: false };
  }
}
