// A PIN's units of work on SQLite, on statements prepared once on better-sqlite3 (hot-path.ts says
// when they may run and how they share a commit): the send (its limits, the PIN with its first
// message, the audit entry) and the verify (verifyPinLimit, the counted attempt, then the verified
// mark or the lock with its webhook event, and the audit entry of the decision), and the PIN reads.
// Nothing is awaited between the statements, so a unit holds the connection for its own few
// microseconds only, and the comparison of the candidate runs inside it.
import type BetterSqlite3 from 'better-sqlite3';
import type { Selectable } from 'kysely';
import type { AuditAppend } from '../audit-store.js';
import { PIN_RECORD_COLUMNS, type PinRecordRow, type PinsTable } from '../schema.js';
import type { DialectStart, DialectVerification, PinToVerify, RateLimitCheck, RateLimitOutcome } from '../store.js';
import type { BudgetCharge } from '../../domain/budgets.js';
import type { SqliteAuditStatements } from './audit-statements.js';
import type { SqliteBudgetStatements } from './budget-statements.js';
import type { SqliteEventStatements } from './event-statements.js';
import type { SqliteHotPath } from './hot-path.js';
import type { SqliteLimitStatements } from './limit-statements.js';
import type { RiskWrite } from '../risk-store.js';
import type { SqliteRiskStatements } from './risk-statements.js';
import type { SqliteTwilioStatements } from './twilio-statements.js';

type PinRow = Selectable<PinsTable>;

/** A new PIN's row, its first message's columns included (no claim holds it yet). */
export type NewPinRow = Omit<PinRow, 'message_lease_holder'>;

const NEW_PIN_COLUMNS = ['id', 'account_id', 'application_id', 'message_id', 'channel', 'destination', 'pin_hash', 'pin_ciphertext', 'attempts_left',
  'allow_multiple_verifications', 'created_at', 'expires_at', 'verified_at', 'locked_at', 'delivery_status', 'delivery_error', 'sent_at', 'send_count',
  'delivery_transport', 'provider_message_id', 'delivered_at', 'country', 'test_number', 'delivery_id', 'message_state', 'message_request',
  'message_attempts', 'message_due_at', 'message_lease_until', 'message_error', 'message_queued_at', 'message_sent_at', 'message_transport',
  'message_provider_id', 'message_sent_event', 'risk'] as const satisfies readonly (keyof NewPinRow)[];

/** An attempt as the rows tell it (kysely-store.ts maps them to a VerifyAttempt). */
export type AttemptRows =
  | { kind: 'refused'; outcome: RateLimitOutcome & { allowed: false } }
  | { kind: 'ended'; row: PinRecordRow | undefined }
  | { kind: 'counted'; row: PinRecordRow; matched: boolean; verified: boolean };

export class SqlitePinStatements {
  private readonly insertPin: BetterSqlite3.Statement<NewPinRow>;
  private readonly pin: BetterSqlite3.Statement<[string, string], PinRecordRow>;
  // Race gate: the attempt is written before the PIN is compared, so concurrent requests can neither
  // exceed pinAttempts nor all see the same "attempts left".
  private readonly countAttempt: BetterSqlite3.Statement<[string, number], PinRecordRow>;
  // Second race gate: without multiple verifications only the request that flips verified_at wins.
  private readonly markVerifiedOnce: BetterSqlite3.Statement<[number, string]>;
  private readonly markVerified: BetterSqlite3.Statement<[number, string]>;
  private readonly lock: BetterSqlite3.Statement<[number, string]>;

  constructor(
    private readonly hot: SqliteHotPath, private readonly limits: SqliteLimitStatements, private readonly audit: SqliteAuditStatements,
    private readonly events: SqliteEventStatements, private readonly twilio: SqliteTwilioStatements, private readonly risk: SqliteRiskStatements,
    private readonly budgets: SqliteBudgetStatements,
  ) {
    const c = hot.connection;
    this.insertPin = c.prepare(`insert into pins (${NEW_PIN_COLUMNS.join(', ')}) values (${NEW_PIN_COLUMNS.map((column) => `:${column}`).join(', ')})`);
    // The PIN's own columns only: its message's (the rendered request above all) are the delivery's.
    const columns = PIN_RECORD_COLUMNS.join(', ');
    this.pin = c.prepare(`select ${columns} from pins where id = ? and account_id = ?`);
    this.countAttempt = c.prepare(`update pins set attempts_left = attempts_left - 1
      where id = ? and attempts_left > 0 and expires_at > ? and locked_at is null and (verified_at is null or allow_multiple_verifications = 1)
      returning ${columns}`);
    this.markVerifiedOnce = c.prepare('update pins set verified_at = coalesce(verified_at, ?), pin_ciphertext = null where id = ? and verified_at is null');
    this.markVerified = c.prepare('update pins set verified_at = coalesce(verified_at, ?), pin_ciphertext = null where id = ?');
    this.lock = c.prepare('update pins set locked_at = ?, pin_ciphertext = null where id = ? and attempts_left = 0 and locked_at is null');
  }

  /**
   * One unit: the budget caps (`budget`) and the limits (`limits`: empty when an external limiter
   * counted them), all checked before any is counted; then, if they admit it, the PIN with the
   * dialect verification it starts, the risk score's hits and decision and the budget charges; last,
   * the audit entry `audit` makes of the outcome (none without `audit`).
   */
  create(row: NewPinRow, limits: RateLimitCheck[], now: number, audit: ((outcome: RateLimitOutcome) => AuditAppend) | undefined, dialect?: DialectStart, risk?: RiskWrite, budget: readonly BudgetCharge[] = []): (RateLimitOutcome & { audited?: true }) | Promise<RateLimitOutcome & { audited?: true }> {
    return this.hot.write(() => {
      const spent = this.budgets.spent(budget);
      let outcome: RateLimitOutcome = this.budgets.refusal(budget, spent, now) ?? this.limits.consume(limits, now);
      if (outcome.allowed) {
        this.insertPin.run(row);
        if (dialect) this.twilio.start(dialect);
        if (risk) this.risk.apply(risk);
        if (budget.length > 0) outcome = { ...outcome, budgetSpent: this.budgets.consume(budget, spent) };
      }
      if (!audit) return outcome;
      this.audit.append(audit(outcome));
      return { ...outcome, audited: true as const };
    });
  }

  /** The PIN as committed (durable once the caller's Store.durable() resolves). */
  get(accountId: string, pinId: string): PinRecordRow | undefined | Promise<PinRecordRow | undefined> {
    return this.hot.read(() => this.pin.get(pinId, accountId));
  }

  /** The PIN about to be verified: may include this turn's uncommitted writes, which the verify's durable() waits for. */
  getToVerify(accountId: string, pinId: string): PinRecordRow | undefined | Promise<PinRecordRow | undefined> {
    return this.hot.readBeforeWrite(() => this.pin.get(pinId, accountId));
  }

  /**
   * One transaction: the limits (`limits`: empty when an external limiter counted them), the counted
   * attempt, the comparison, then the verified mark or, after the last wrong attempt, the lock; last,
   * the audit entry `audit` makes of the outcome. A verified mark ends `dialect`'s verification with it.
   * If anything throws, nothing of it is written.
   */
  attempt(pin: PinToVerify, now: number, limits: RateLimitCheck[], matches: (pinHash: string) => boolean, audit: (rows: AttemptRows) => AuditAppend, dialect?: DialectVerification): AttemptRows | Promise<AttemptRows> {
    return this.hot.write((): AttemptRows => {
      const rows = this.decide(pin, now, limits, matches, dialect);
      this.audit.append(audit(rows));
      return rows;
    });
  }

  private decide(pin: PinToVerify, now: number, limits: RateLimitCheck[], matches: (pinHash: string) => boolean, dialect: DialectVerification | undefined): AttemptRows {
    const outcome = this.limits.consume(limits, now);
    if (!outcome.allowed) return { kind: 'refused', outcome };
    const row = this.countAttempt.get(pin.id, now);
    if (!row) return { kind: 'ended', row: this.pin.get(pin.id, pin.accountId) };
    if (matches(row.pin_hash)) {
      const won = (row.allow_multiple_verifications === 1 ? this.markVerified : this.markVerifiedOnce).run(now, pin.id).changes > 0;
      if (won) {
        this.events.enqueuePinEvent('pin.verified', pin.id, now, { status: 'verified' });
        if (dialect) this.twilio.approveVerification(pin.accountId, pin.id, now, dialect.approved);
      }
      return { kind: 'counted', row, matched: true, verified: won };
    }
    if (row.attempts_left === 0 && this.lock.run(now, pin.id).changes > 0) this.events.enqueuePinEvent('pin.locked', pin.id, now, { status: 'locked' });
    return { kind: 'counted', row, matched: false, verified: false };
  }
}
