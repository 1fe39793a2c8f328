// A PIN's webhook events on SQLite (event-store.ts makes the rows), queued by the hot path's
// transactions (pin-statements.ts, outbox-statements.ts) in the transaction of the change they report.
import type BetterSqlite3 from 'better-sqlite3';
import type { Selectable } from 'kysely';
import type { PinEventType } from '../../domain/pin-events.js';
import { pinEventRows, type PinEventDetails, type PinSubscriberRow } from '../event-store.js';
import type { ConfigVersion } from '../config-cache.js';
import type { EventOutboxTable } from '../schema.js';

export class SqliteEventStatements {
  private readonly subscribersOfPin: BetterSqlite3.Statement<[string], PinSubscriberRow>;
  private readonly insertEvent: BetterSqlite3.Statement<Omit<Selectable<EventOutboxTable>, 'lease_holder'>>;
  private readonly anyEnabled: BetterSqlite3.Statement<[], unknown>;
  /** Whether any subscription is enabled, as of `enabledAt` (a configuration version: config-cache.ts). */
  private enabled = true;
  private enabledAt: string | undefined;

  /** `configVersion`: when it has not moved, no subscription was enabled since the last look (absent: always look). */
  constructor(connection: BetterSqlite3.Database, private readonly configVersion?: ConfigVersion) {
    this.subscribersOfPin = connection.prepare(`select s.id as subscription_id, s.events, p.account_id, p.application_id, p.message_id, p.channel, p.destination, p.attempts_left, p.test_number, p.risk
      from pins p join webhook_subscriptions s on s.account_id = p.account_id where p.id = ? and s.enabled = 1`);
    this.insertEvent = connection.prepare(`insert into event_outbox (id, account_id, subscription_id, event_type, pin_id, payload, state, attempts, next_attempt_at,
      lease_until, last_error, created_at, updated_at) values (:id, :account_id, :subscription_id, :event_type, :pin_id, :payload, :state, :attempts,
      :next_attempt_at, :lease_until, :last_error, :created_at, :updated_at)`);
    this.anyEnabled = connection.prepare('select 1 from webhook_subscriptions where enabled = 1 limit 1');
  }

  /** Queues rows made elsewhere (the Twilio dialect's events: twilio-statements.ts); must run inside a write transaction. */
  insertRows(rows: ReadonlyArray<Omit<Selectable<EventOutboxTable>, 'lease_holder'>>): void {
    for (const row of rows) this.insertEvent.run(row);
  }

  /** Queues the event for every subscription that wants it; must run inside a write transaction (hot-path.ts). */
  enqueuePinEvent(type: PinEventType, pinId: string, now: number, details: PinEventDetails): void {
    // A deployment without subscriptions (the configuration cache's version unmoved) skips the join, as event-store.ts does.
    if (!this.subscriptionsEnabled()) return;
    for (const event of pinEventRows(type, pinId, now, details, this.subscribersOfPin.all(pinId))) this.insertEvent.run(event);
  }

  private subscriptionsEnabled(): boolean {
    if (this.configVersion === undefined) return true;
    const version = this.configVersion();
    if (version !== this.enabledAt) {
      this.enabled = this.anyEnabled.get() !== undefined;
      this.enabledAt = version;
    }
    return this.enabled;
  }
}
