// The Twilio dialect's rows written by the hot path's transactions (pin-statements.ts), so that a
// verification starts with its PIN and is approved with the verify that verifies it: its row and
// first send with the PIN's insert, its approval with the verified mark, each with its event for the
// Service's webhooks (twilio-store.ts makes the rows, as its Kysely methods do off the hot path).
import type BetterSqlite3 from 'better-sqlite3';
import type { DialectStart } from '../store.js';
import { twilioEventRows, withChannel, type TwilioEventDraft } from '../twilio-store.js';
import type { SqliteEventStatements } from './event-statements.js';

export class SqliteTwilioStatements {
  private readonly insertVerification: BetterSqlite3.Statement<[string, string, string, string, number, number, number, string | null, string | null]>;
  private readonly insertAttempt: BetterSqlite3.Statement<[string, string, string, string, number, number, number]>;
  // Race gate: of concurrent ends of one verification only the first reports it (as twilio-store.ts endVerification).
  private readonly approve: BetterSqlite3.Statement<[number, string, string], { channel: string }>;
  private readonly hooks: BetterSqlite3.Statement<[string, string], { sid: string; event_types: string }>;

  constructor(connection: BetterSqlite3.Database, private readonly events: SqliteEventStatements) {
    this.insertVerification = connection.prepare(`insert into twilio_verifications (pin_id, account_id, status, channel, created_at, updated_at, expires_at, amount, payee)
      values (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.insertAttempt = connection.prepare('insert into twilio_attempts (sid, account_id, pin_id, channel, seq, created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?)');
    this.approve = connection.prepare("update twilio_verifications set status = 'approved', updated_at = ? where pin_id = ? and account_id = ? and status = 'pending' returning channel");
    this.hooks = connection.prepare("select sid, event_types from twilio_webhooks where application_id = ? and account_id = ? and status = 'enabled'");
  }

  /** Inserts the verification a PIN starts, its sends and its event; must run inside a write transaction (hot-path.ts). */
  start({ twilio: row, started }: DialectStart): void {
    this.insertVerification.run(row.pinId, row.accountId, row.status, row.channel, row.createdAt, row.updatedAt, row.expiresAt, row.amount ?? null, row.payee ?? null);
    for (const [seq, a] of row.sendCodeAttempts.entries()) this.insertAttempt.run(a.attemptSid, row.accountId, row.pinId, a.channel, seq, a.time, row.expiresAt);
    if (started) this.enqueue(row.accountId, started, row.createdAt);
  }

  /**
   * Approves the PIN's pending verification, if it has one, and queues `event` naming the
   * verification's own channel; must run inside a write transaction.
   */
  approveVerification(accountId: string, pinId: string, now: number, event: TwilioEventDraft): void {
    const approved = this.approve.get(now, pinId, accountId);
    if (approved) this.enqueue(accountId, withChannel(event, approved.channel), now);
  }

  private enqueue(accountId: string, event: TwilioEventDraft, now: number): void {
    this.events.insertRows(twilioEventRows(accountId, event, now, this.hooks.all(event.applicationId, accountId)));
  }
}
