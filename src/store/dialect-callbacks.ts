// The callbacks of the Vonage and Prelude dialects, queued in the event outbox (delivered by the
// event worker with its retries and address guard) from what the engine's PINs committed: a sweep,
// run before each claim of the event worker, finds the Vonage requests whose PIN ended (verified,
// locked, expired) and the Prelude verifications whose PIN was sent or got its receipt since the last
// report, and in one transaction each queues their callbacks and records them reported. The PINs'
// own transactions (the hot path) carry nothing of it, and a callback exists if and only if the
// change it reports committed: a node that dies before the sweep's commit leaves it to the next sweep.
// A conditional UPDATE on what was reported is the race gate: of two nodes sweeping one row, one queues.
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { DeliveryStatus } from '../domain/channels.js';
import { preludeDeliveryStatus, preludeWebhookBody, type PreludeWebhookType } from '../domain/prelude-webhooks.js';
import { vonageEndCallbacks, VONAGE_CALLBACK_EVENT, VONAGE_CALLBACK_SUMMARY, type RanStep, type VonageFinalStatus } from '../domain/vonage-callbacks.js';
import { vonageRequestId } from '../domain/vonage-ids.js';
import type { Database, EventOutboxTable } from './schema.js';

type OutboxRow = Omit<Selectable<EventOutboxTable>, 'lease_holder'>;

/** Rows one sweep looks at, per dialect: a backlog is taken by the sweeps that follow. */
const SWEEP_BATCH = 200;
/** How long after its PIN's expiry a Prelude verification still waits for a late receipt. */
export const PRELUDE_RECEIPT_GRACE_MS = 3_600_000;
/** A PIN whose latest send is in these states has not sent it (yet, or ever: a test number). */
const UNSENT = ['queued', 'not_sent'];
const FINAL_DELIVERY: ReadonlySet<string> = new Set<DeliveryStatus>(['delivered', 'undelivered', 'failed', 'not_sent']);

function outboxRow(accountId: string, subscriptionId: string, type: string, pinId: string, payload: string, now: number): OutboxRow {
  return {
    id: randomUUID(), account_id: accountId, subscription_id: subscriptionId, event_type: type, pin_id: pinId, payload,
    state: 'pending', attempts: 0, next_attempt_at: now, lease_until: 0, last_error: null, created_at: now, updated_at: now,
  };
}

/** Queues the callbacks due now; answers how many rows were queued. */
export async function sweepDialectCallbacks(db: Kysely<Database>, dialect: 'sqlite' | 'postgres', now: number): Promise<number> {
  return await sweepVonage(db, dialect, now) + await sweepPrelude(db, dialect, now);
}

async function sweepVonage(db: Kysely<Database>, dialect: 'sqlite' | 'postgres', now: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let query = trx.selectFrom('vonage_requests as v').leftJoin('pins as p', 'p.id', 'v.pin_id')
      .select(['v.pin_id', 'v.account_id', 'v.application_id', 'v.client_ref', 'v.channel_timeout', 'v.channels', 'v.created_at',
        'p.id as pin', 'p.verified_at', 'p.locked_at', 'p.expires_at as pin_expires_at', 'p.delivery_status'])
      // Seeks the partial index vonage_requests_open: the requests not reported yet.
      .where('v.reported', 'is', null)
      .where((eb) => eb.or([eb('p.id', 'is', null), eb('p.verified_at', 'is not', null), eb('p.locked_at', 'is not', null), eb('p.expires_at', '<=', now)]))
      .orderBy('v.expires_at').limit(SWEEP_BATCH);
    if (dialect === 'postgres') query = query.forUpdate('v').skipLocked();
    const ended = await query.execute();
    let queued = 0;
    for (const r of ended) {
      const status: VonageFinalStatus | 'gone' = r.pin === null ? 'gone' : r.verified_at !== null ? 'completed' : r.locked_at !== null ? 'failed' : 'expired';
      const reported = await trx.updateTable('vonage_requests').set({ reported: status }).where('pin_id', '=', r.pin_id).where('reported', 'is', null).executeTakeFirst();
      if (Number(reported.numUpdatedRows) === 0 || status === 'gone') continue;
      const app = await trx.selectFrom('vonage_applications').select('callback_url').where('application_id', '=', r.application_id).executeTakeFirst();
      if (!app?.callback_url) continue;
      const finalizedAt = Number(r.verified_at ?? r.locked_at ?? r.pin_expires_at);
      const steps = await ranSteps(trx, r.pin_id, r.channels.split(' '), Number(r.created_at), r.delivery_status ?? '');
      const [event, summary] = vonageEndCallbacks({
        requestId: vonageRequestId(r.pin_id), clientRef: r.client_ref, channelTimeout: Number(r.channel_timeout), submittedAt: Number(r.created_at), finalizedAt, status, steps,
      });
      await trx.insertInto('event_outbox').values([
        outboxRow(r.account_id, r.application_id, VONAGE_CALLBACK_EVENT, r.pin_id, JSON.stringify(event), now),
        outboxRow(r.account_id, r.application_id, VONAGE_CALLBACK_SUMMARY, r.pin_id, JSON.stringify(summary), now),
      ]).execute();
      queued += 2;
    }
    return queued;
  });
}

/**
 * The request's steps as the engine ran them: the PIN's workflow steps when it has them (a request
 * of several channels), else its one message, sent with the PIN.
 */
async function ranSteps(trx: Transaction<Database>, pinId: string, channels: string[], createdAt: number, deliveryStatus: string): Promise<RanStep[]> {
  const rows = await trx.selectFrom('pin_workflow_steps').select(['step', 'state', 'updated_at']).where('pin_id', '=', pinId).execute();
  const messageFailed = deliveryStatus === 'failed' || deliveryStatus === 'undelivered';
  if (rows.length === 0) return channels.map((channel, i) => ({ channel, initiatedAt: i === 0 ? createdAt : undefined, failed: i === 0 && messageFailed }));
  const byStep = new Map(rows.map((row) => [Number(row.step), row]));
  return channels.map((channel, i) => {
    const row = byStep.get(i);
    const ran = i === 0 || row?.state === 'sent' || row?.state === 'failed';
    return { channel, initiatedAt: !ran ? undefined : i === 0 ? createdAt : Number(row!.updated_at), failed: row?.state === 'failed' };
  });
}

async function sweepPrelude(db: Kysely<Database>, dialect: 'sqlite' | 'postgres', now: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let query = trx.selectFrom('prelude_verifications as v').leftJoin('pins as p', 'p.id', 'v.pin_id')
      .select(['v.pin_id', 'v.account_id', 'v.correlation_id', 'v.created_at', 'v.authentication_reported', 'v.reported_sends', 'v.reported_delivery',
        'p.id as pin', 'p.channel', 'p.destination', 'p.sent_at', 'p.send_count', 'p.delivery_status', 'p.verified_at', 'p.locked_at', 'p.expires_at as pin_expires_at'])
      // Seeks the partial index prelude_verifications_open: those with a callback URL and webhooks still due.
      .where('v.open', '=', 1)
      .where((eb) => eb.or([
        eb('v.authentication_reported', '=', 0), eb('p.id', 'is', null), eb('p.expires_at', '<=', now - PRELUDE_RECEIPT_GRACE_MS),
        // Ended with its receipt in: closed (nothing is due any more).
        eb.or([eb('p.verified_at', 'is not', null), eb('p.locked_at', 'is not', null), eb('p.expires_at', '<=', now)])
          .and(eb('p.delivery_status', 'in', [...FINAL_DELIVERY])),
        // A send that left (its message is no longer queued) not reported yet.
        eb('p.send_count', '>', eb.ref('v.reported_sends')).and(eb('p.delivery_status', 'not in', UNSENT)),
        eb('p.delivery_status', 'in', ['delivered', 'undelivered', 'failed']).and(eb.or([eb('v.reported_delivery', 'is', null), eb('v.reported_delivery', '<>', eb.ref('p.delivery_status'))])),
      ]))
      .orderBy('v.expires_at').limit(SWEEP_BATCH);
    if (dialect === 'postgres') query = query.forUpdate('v').skipLocked();
    let queued = 0;
    for (const r of await query.execute()) {
      const webhooks: Array<{ type: PreludeWebhookType; at: number; status?: ReturnType<typeof preludeDeliveryStatus> }> = [];
      let sends = Number(r.reported_sends);
      let delivery = r.reported_delivery;
      if (r.pin !== null) {
        if (Number(r.authentication_reported) === 0) webhooks.push({ type: 'verify.authentication', at: Number(r.created_at) });
        if (Number(r.send_count) > sends && !UNSENT.includes(r.delivery_status ?? 'queued')) {
          // The first message's time is the PIN's; a later one's is when the sweep saw it leave.
          webhooks.push({ type: 'verify.attempt', at: sends === 0 && r.sent_at !== null ? Number(r.sent_at) : now });
          sends = Number(r.send_count);
          delivery = null;
        }
        const receipt = r.delivery_status !== null && r.delivery_status !== 'sent' ? r.delivery_status : null;
        const status = receipt === null ? undefined : preludeDeliveryStatus(receipt as DeliveryStatus);
        if (receipt !== null && status !== undefined && receipt !== delivery) {
          delivery = receipt;
          webhooks.push({ type: 'verify.delivery_status', at: now, status });
        }
      }
      const ended = r.pin === null || r.verified_at !== null || r.locked_at !== null || Number(r.pin_expires_at) <= now;
      const settled = r.pin === null || (ended && FINAL_DELIVERY.has(r.delivery_status ?? '')) || Number(r.pin_expires_at) + PRELUDE_RECEIPT_GRACE_MS <= now;
      // Race gate: only the sweep that still finds what was reported before moves it on.
      let update = trx.updateTable('prelude_verifications')
        .set({ authentication_reported: 1, reported_sends: sends, reported_delivery: delivery, open: settled ? 0 : 1 })
        .where('pin_id', '=', r.pin_id).where('open', '=', 1).where('authentication_reported', '=', r.authentication_reported)
        .where('reported_sends', '=', r.reported_sends);
      update = r.reported_delivery === null ? update.where('reported_delivery', 'is', null) : update.where('reported_delivery', '=', r.reported_delivery);
      if (Number((await update.executeTakeFirst()).numUpdatedRows) === 0 || webhooks.length === 0) continue;
      const subject = { pinId: r.pin_id, channel: r.channel!, destination: r.destination!, correlationId: r.correlation_id };
      // The event's subscription is the verification itself: its row holds the URL the worker posts to.
      await trx.insertInto('event_outbox').values(webhooks.map((w) => outboxRow(r.account_id, r.pin_id, w.type, r.pin_id,
        preludeWebhookBody(w.type, subject, w.at, w.status === undefined ? {} : { status: w.status }), now))).execute();
      queued += webhooks.length;
    }
    return queued;
  });
}
