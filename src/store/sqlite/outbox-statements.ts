// The delivery worker's writes on SQLite, prepared once on better-sqlite3 and run as synchronous
// transactions of the hot path (hot-path.ts): the claim of due messages (a PIN's first, on its row,
// and later ones, outbox rows) as one transaction, and the outcomes of attempts (sent, retried,
// failed, cancelled) with the PIN's delivery columns, its history, its webhook events and the audit
// entry of each outcome, a batch of outcomes per transaction (one commit for all of them).
import type BetterSqlite3 from 'better-sqlite3';
import type { Selectable } from 'kysely';
import type { AuditAppend } from '../audit-store.js';
import type { OutboxTable, PinsTable } from '../schema.js';
import type { DeliveryEventKind } from '../store.js';
import type { MessagePriceInput } from '../price-store.js';
import type { SqliteAuditStatements } from './audit-statements.js';
import type { SqliteEventStatements } from './event-statements.js';
import type { SqliteHotPath } from './hot-path.js';

type PinRow = Selectable<PinsTable>;
type OutboxRow = Selectable<OutboxTable>;

/** What one attempt at a message came to, as the store records it. `eventId`: the id of its history entry. */
export type OutboxOutcome = { id: string; pinId: string; now: number; eventId: string } & (
  | { kind: 'sent'; transport: string | null; providerMessageId: string | null; price?: MessagePriceInput | undefined; audit?: AuditAppend | undefined }
  | { kind: 'retried'; nextAttemptAt: number; error: string }
  | { kind: 'failed' | 'cancelled'; error: string; audit?: AuditAppend | undefined }
);

/** The rows a claim leased: PINs whose first message is due, and due outbox rows. */
export interface ClaimedRows {
  own: PinRow[];
  later: OutboxRow[];
}

interface Due {
  id: string;
  due_at: number;
  created_at: number;
}

type PriceValues = MessagePriceInput & { id: string; pinId: string; now: number; transport: string; providerMessageId: string | null };

interface HistoryEntry {
  id: string;
  at: number;
  event: DeliveryEventKind;
  transport: string | null;
  providerMessageId: string | null;
  error: string | null;
}

export class SqliteOutboxStatements {
  // Through the partial index pins_message_due (the literal 'pending' is its condition).
  private readonly ownDue: BetterSqlite3.Statement<[number, number, number], Due>;
  private readonly laterDue: BetterSqlite3.Statement<[number, number, number], Due>;
  private readonly leaseOwn: BetterSqlite3.Statement<[number, string | null, string], PinRow>;
  private readonly leaseLater: BetterSqlite3.Statement<[number, string | null, number, string], OutboxRow>;
  /** The PIN's own message handed over: the message done and the PIN sent, one row (its `sent` history entry is read from these columns). */
  private readonly ownSent: BetterSqlite3.Statement<{ id: string; pinId: string; now: number; transport: string | null; providerMessageId: string | null; eventId: string }>;
  private readonly laterSent: BetterSqlite3.Statement<{ id: string; now: number; transport: string | null; providerMessageId: string | null }>;
  private readonly pinSent: BetterSqlite3.Statement<{ pinId: string; now: number; transport: string | null; providerMessageId: string | null }>;
  private readonly ownRetried: BetterSqlite3.Statement<[number, string, string, string]>;
  private readonly laterRetried: BetterSqlite3.Statement<[number, string, number, string]>;
  private readonly ownEnded: BetterSqlite3.Statement<[string, string, string, string]>;
  private readonly laterEnded: BetterSqlite3.Statement<[string, string, number, string]>;
  // A failed resend does not undo an earlier successful delivery of the same PIN.
  private readonly pinFailed: BetterSqlite3.Statement<[string, string]>;
  private readonly ownHistory: BetterSqlite3.Statement<HistoryEntry & { pinId: string }>;
  private readonly laterHistory: BetterSqlite3.Statement<HistoryEntry & { outboxId: string }>;
  /** The message's price, with its PIN's account, application and country; a message recorded sent twice keeps its first. */
  private readonly priced: BetterSqlite3.Statement<PriceValues>;

  constructor(private readonly hot: SqliteHotPath, private readonly events: SqliteEventStatements, private readonly audit: SqliteAuditStatements) {
    const c = hot.connection;
    this.priced = c.prepare(`insert into message_prices (delivery_id, pin_id, account_id, application_id, channel, transport, country, prefix, at, segments,
        amount, currency, source, provider_message_id)
      select :id, id, account_id, application_id, :channel, :transport, coalesce(:country, country), :prefix, :now, :segments, :amount, :currency, :source,
        :providerMessageId from pins where id = :pinId
      on conflict (delivery_id) do nothing`);
    this.ownDue = c.prepare(`select id, message_due_at as due_at, message_queued_at as created_at from pins
      where message_state = 'pending' and message_due_at <= ? and message_lease_until <= ? order by message_due_at limit ?`);
    this.laterDue = c.prepare(`select id, next_attempt_at as due_at, created_at from outbox
      where state = 'pending' and next_attempt_at <= ? and lease_until <= ? order by next_attempt_at limit ?`);
    this.leaseOwn = c.prepare('update pins set message_lease_until = ?, message_lease_holder = ?, message_attempts = message_attempts + 1 where id = ? returning *');
    this.leaseLater = c.prepare('update outbox set lease_until = ?, lease_holder = ?, attempts = attempts + 1, updated_at = ? where id = ? returning *');
    this.ownSent = c.prepare(`update pins set message_state = 'done', message_error = null, message_sent_at = :now, message_transport = :transport,
      message_provider_id = :providerMessageId, message_sent_event = :eventId, delivery_status = 'sent', delivery_error = null, sent_at = coalesce(sent_at, :now),
      delivery_transport = :transport, provider_message_id = :providerMessageId where id = :pinId and delivery_id = :id`);
    this.laterSent = c.prepare(`update outbox set state = 'done', updated_at = :now, last_error = null, transport = :transport, provider_message_id = :providerMessageId
      where id = :id`);
    this.pinSent = c.prepare(`update pins set delivery_status = 'sent', delivery_error = null, sent_at = coalesce(sent_at, :now), delivery_transport = :transport,
      provider_message_id = :providerMessageId where id = :pinId`);
    this.ownRetried = c.prepare('update pins set message_due_at = ?, message_lease_until = 0, message_error = ? where id = ? and delivery_id = ?');
    this.laterRetried = c.prepare('update outbox set next_attempt_at = ?, lease_until = 0, last_error = ?, updated_at = ? where id = ?');
    this.ownEnded = c.prepare('update pins set message_state = ?, message_error = ? where id = ? and delivery_id = ?');
    this.laterEnded = c.prepare('update outbox set state = ?, last_error = ?, updated_at = ? where id = ?');
    this.pinFailed = c.prepare(`update pins set delivery_status = 'failed', delivery_error = ? where id = ? and sent_at is null`);
    this.ownHistory = c.prepare(`insert into delivery_events (id, pin_id, account_id, at, event, channel, transport, provider_message_id, error)
      select :id, id, account_id, :at, :event, channel, :transport, :providerMessageId, :error from pins where id = :pinId`);
    this.laterHistory = c.prepare(`insert into delivery_events (id, pin_id, account_id, at, event, channel, transport, provider_message_id, error)
      select :id, pin_id, account_id, :at, :event, channel, :transport, :providerMessageId, :error from outbox where id = :outboxId`);
  }

  /**
   * Leases up to `max` due messages to `holder` until `leaseUntil`, oldest due first, in one
   * transaction: the candidates of both kinds are read first, so only those handed over are leased.
   */
  claim(now: number, leaseUntil: number, max: number, holder: string | null): ClaimedRows | Promise<ClaimedRows> {
    return this.hot.write(() => {
      const due = [
        ...this.ownDue.all(now, now, max).map((d) => ({ ...d, own: true })),
        ...this.laterDue.all(now, now, max).map((d) => ({ ...d, own: false })),
      ].sort((x, y) => x.due_at - y.due_at || x.created_at - y.created_at).slice(0, max);
      const claimed: ClaimedRows = { own: [], later: [] };
      for (const d of due) {
        if (d.own) claimed.own.push(this.leaseOwn.get(leaseUntil, holder, d.id)!);
        else claimed.later.push(this.leaseLater.get(leaseUntil, holder, now, d.id)!);
      }
      return claimed;
    });
  }

  /** Records the outcomes, each with its history, events and audit entry, in one transaction; a throw writes none of them. */
  record(outcomes: OutboxOutcome[]): void | Promise<void> {
    return this.hot.write(() => {
      for (const outcome of outcomes) this.recordOne(outcome);
    });
  }

  private recordOne(o: OutboxOutcome): void {
    if (o.kind === 'sent') {
      const values = { id: o.id, pinId: o.pinId, now: o.now, transport: o.transport, providerMessageId: o.providerMessageId };
      if (this.ownSent.run({ ...values, eventId: o.eventId }).changes === 0) {
        this.laterSent.run(values);
        this.pinSent.run(values);
        this.history(o, false, { event: 'sent', transport: o.transport, providerMessageId: o.providerMessageId, error: null });
      }
      if (o.price && o.transport !== null) {
        const { channel, transport, country, prefix, segments, amount, currency, source } = o.price;
        this.priced.run({ id: o.id, pinId: o.pinId, now: o.now, transport, providerMessageId: o.providerMessageId, channel, country, prefix, segments, amount, currency, source });
      }
      this.events.enqueuePinEvent('pin.sent', o.pinId, o.now, { status: 'sent', transport: o.transport });
    } else if (o.kind === 'retried') {
      const own = this.ownRetried.run(o.nextAttemptAt, o.error, o.pinId, o.id).changes > 0;
      if (!own) this.laterRetried.run(o.nextAttemptAt, o.error, o.now, o.id);
      this.history(o, own, { event: 'retried', transport: null, providerMessageId: null, error: o.error });
    } else {
      const own = this.ownEnded.run(o.kind, o.error, o.pinId, o.id).changes > 0;
      if (!own) this.laterEnded.run(o.kind, o.error, o.now, o.id);
      this.history(o, own, { event: o.kind, transport: null, providerMessageId: null, error: o.error });
      if (o.kind === 'failed' && this.pinFailed.run(o.error, o.pinId).changes > 0) {
        this.events.enqueuePinEvent('pin.failed', o.pinId, o.now, { status: 'failed', error: o.error });
      }
    }
    if (o.kind !== 'retried' && o.audit) this.audit.append(o.audit);
  }

  /** The outcome in its PIN's history: a row that the message's own row (PIN or outbox) completes. */
  private history(o: OutboxOutcome, own: boolean, entry: Omit<HistoryEntry, 'id' | 'at'>): void {
    const values = { ...entry, id: o.eventId, at: o.now };
    if (own) this.ownHistory.run({ ...values, pinId: o.pinId });
    else this.laterHistory.run({ ...values, outboxId: o.id });
  }
}
