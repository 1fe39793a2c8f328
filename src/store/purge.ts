// Housekeeping: expired PINs' ciphertexts erased, their undelivered messages cancelled, and
// everything past the retention deleted, in batches (purge-batches.ts).
import { sql, type Kysely } from 'kysely';
import type { KyselyEventStore } from './event-store.js';
import type { KyselyIdempotencyStore } from './idempotency-store.js';
import type { KyselyTwilioStore } from './twilio-store.js';
import type { KyselyFactorStore } from './factor-store.js';
import { UNVERIFIED_FACTOR_TTL_MS } from '../domain/factors.js';
import { batchOf, deleteInBatches, inBatches, PURGE_LIMITS, type PurgeLimits } from './purge-batches.js';
import type { Database } from './schema.js';

/**
 * Every step works in batches (src/store/purge-batches.ts) and seeks through an index of migration
 * 0006, whose partial predicates the WHERE clauses repeat to the letter (`pin_ciphertext is not
 * null`, `state <> 'pending'`): a run costs what expired or aged out since the last one, not what is
 * stored. test/store/store-contract.ts checks the plans of every statement.
 */
export async function purgeEnded(db: Kysely<Database>, dialect: 'sqlite' | 'postgres', stores: { events: KyselyEventStore; twilio: KyselyTwilioStore; idempotency: KyselyIdempotencyStore; factors: KyselyFactorStore }, now: number, retentionMs: number, limits: PurgeLimits = PURGE_LIMITS): Promise<{ erased: number; deleted: number }> {
  const { events } = stores;
  // Accounts subscribed to pin.expired get an event per PIN (bounded per run); the rest are erased at once.
  const expired = await events.expirePins(now);
  // Twilio verifications end as their PINs expire (verification.expired for the Services' webhooks).
  await stores.twilio.expireVerifications(now);
  const erased = await inBatches(limits, async (batch) => (await db.updateTable('pins').set({ pin_ciphertext: null })
    .where('id', 'in', batchOf(db.selectFrom('pins').select('id')
      .where('expires_at', '<=', now).where('pin_ciphertext', 'is not', null)
      .where('account_id', 'not in', events.expirySubscribers(db))
      .orderBy('expires_at').limit(batch), dialect))
    .executeTakeFirst()).numUpdatedRows);
  // Messages of PINs that expired before they could be delivered are of no use to anyone. Walks the
  // pending messages (few), not the expired PINs (all but the live ones), and runs before PINs past
  // the retention are deleted, so that none of theirs is left pending. First messages (on their PINs,
  // seeking the partial index pins_message_due to those due: one waiting for a later retry is
  // cancelled by the run after it fell due), then later ones (outbox rows).
  // (The subquery locks the rows it picks on PostgreSQL, so they are still pending.)
  await inBatches(limits, async (batch) => (await db.updateTable('pins').set({ message_state: 'cancelled', message_error: 'PIN expired before delivery' })
    .where('id', 'in', batchOf(db.selectFrom('pins').select('id').where('message_state', '=', sql.lit('pending')).where('message_due_at', '<=', now)
      .where('expires_at', '<=', now).orderBy('message_due_at').limit(batch), dialect))
    .executeTakeFirst()).numUpdatedRows);
  await inBatches(limits, async (batch) => (await db.updateTable('outbox').set({ state: 'cancelled', last_error: 'PIN expired before delivery', updated_at: now })
    .where('state', '=', 'pending')
    .where('id', 'in', batchOf(db.selectFrom('outbox as o').select('o.id').where('o.state', '=', 'pending')
      .where(({ exists, selectFrom }) => exists(selectFrom('pins').select('pins.id').whereRef('pins.id', '=', 'o.pin_id').where('pins.expires_at', '<=', now)))
      .limit(batch), dialect))
    .executeTakeFirst()).numUpdatedRows);
  const cutoff = now - retentionMs;
  await events.purgeEnded(cutoff, limits);
  const deleted = await deleteInBatches(db, dialect, limits, 'pins', (batch) =>
    db.selectFrom('pins').select('id').where('expires_at', '<=', cutoff).orderBy('expires_at').limit(batch));
  await stores.twilio.purge(cutoff, limits);
  // What the Vonage and Prelude dialects keep beside a PIN goes with it.
  await inBatches(limits, async (batch) => (await db.deleteFrom('vonage_requests')
    .where('pin_id', 'in', batchOf(db.selectFrom('vonage_requests').select('pin_id').where('expires_at', '<=', cutoff).orderBy('expires_at').limit(batch), dialect))
    .executeTakeFirst()).numDeletedRows);
  await inBatches(limits, async (batch) => (await db.deleteFrom('prelude_verifications')
    .where('pin_id', 'in', batchOf(db.selectFrom('prelude_verifications').select('pin_id').where('expires_at', '<=', cutoff).orderBy('expires_at').limit(batch), dialect))
    .executeTakeFirst()).numDeletedRows);
  await deleteInBatches(db, dialect, limits, 'outbox', (batch) =>
    db.selectFrom('outbox').select('id').where('state', '<>', sql.lit('pending')).where('updated_at', '<=', cutoff).orderBy('updated_at').limit(batch));
  await deleteInBatches(db, dialect, limits, 'delivery_events', (batch) =>
    db.selectFrom('delivery_events').select('id').where('at', '<=', cutoff).orderBy('at').limit(batch));
  await inBatches(limits, async (batch) => (await db.deleteFrom('rate_limit_buckets')
    .where(({ eb, refTuple }) => eb(refTuple('key', 'bucket_start'), 'in', batchOf(db.selectFrom('rate_limit_buckets').select(['key', 'bucket_start'])
      .where('expires_at', '<=', now).orderBy('expires_at').limit(batch), dialect).$asTuple('key', 'bucket_start')))
    .executeTakeFirst()).numDeletedRows);
  await stores.idempotency.purge(now, limits);
  // Challenges past the retention, and factors never verified within a day (as Twilio drops them).
  await stores.factors.purge(cutoff, now - UNVERIFIED_FACTOR_TTL_MS, limits);
  return { erased: expired + erased, deleted };
}
