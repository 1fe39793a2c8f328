// The rows behind workflows (domain/workflows.ts): an application's steps (a column of its row) and,
// per PIN sent under one, a row per step in `pin_workflow_steps`. A step is claimed by one node with
// a conditional UPDATE (SKIP LOCKED on PostgreSQL), and marked sent inside the transaction that
// queues its message (markWorkflowStepSent, called by KyselyStore.queueResend), which is what makes
// a step run exactly once across crashes: a node that dies before that commit leaves its lease to
// run out and the step is claimed again; after it, the step is done.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { WorkflowStep } from '../domain/workflows.js';
import type { Database } from './schema.js';
import type { Channel } from '../domain/channels.js';
import type { DeliveryRequest } from './delivery-request.js';

export type WorkflowStepState = 'scheduled' | 'running' | 'sent' | 'failed' | 'skipped' | 'cancelled';

export interface WorkflowStepRecord {
  step: number;
  channel: Channel;
  state: WorkflowStepState;
  /** When a scheduled step goes out; for the others, when it was due last. */
  dueAt: number | null;
  /** Why a step was skipped, cancelled or failed. */
  reason: string | null;
  updatedAt: number;
}

export interface NewWorkflowStep {
  step: number;
  channel: Channel;
  state: 'scheduled' | 'sent' | 'skipped';
  dueAt: number | null;
  reason: string | null;
}

/** A due step this node claimed: it alone runs it until `leaseUntil`. */
export interface WorkflowStepClaim {
  pinId: string;
  step: number;
  accountId: string;
  channel: Channel;
  dueAt: number;
  claim: string;
  /**
   * The request of the PIN's first message (placeholders, sender override), which every step
   * re-sends with; empty when the first message was never queued.
   */
  firstRequest: DeliveryRequest;
}

export interface WorkflowStore {
  /** Sets (or with null removes) an application's workflow; false when the account has no such application. */
  setWorkflow(accountId: string, applicationId: string, steps: readonly WorkflowStep[] | null, now: number): Promise<boolean>;
  /**
   * Writes a PIN's steps before the PIN itself (the caller then creates the PIN): whenever a PIN
   * exists its steps do, without a change to the send's own statement. Commits without waiting for
   * the disk, like createPin: the caller's durable() covers both.
   */
  schedule(accountId: string, pinId: string, steps: NewWorkflowStep[], now: number): Promise<void>;
  /** Drops the steps of a send that was then refused (its PIN was never written). */
  discard(pinId: string): Promise<void>;
  /**
   * Claims up to `max` due steps, each the next of its PIN (a later step waits for the one before it),
   * each with the request of its PIN's first message.
   */
  claimDue(now: number, leaseUntil: number, max: number): Promise<WorkflowStepClaim[]>;
  /**
   * Ends a claimed step without sending it. `then`: `advance` makes the PIN's next step due now (a
   * refused step is a failure); `cancel` cancels the PIN's remaining steps (the PIN ended).
   */
  finish(claim: WorkflowStepClaim, state: 'skipped' | 'cancelled', reason: string, now: number, then: 'advance' | 'cancel'): Promise<void>;
  /**
   * A message of the PIN failed for good: its latest sent step (if on `channel`, when given) is marked
   * failed and the next step is due now. True when a step was moved.
   */
  deliveryFailed(pinId: string, channel: Channel | undefined, reason: string, now: number): Promise<boolean>;
  /** Makes the PIN's next scheduled step due now (Vonage's next_workflow); false when none is left. */
  advance(pinId: string, now: number): Promise<boolean>;
  list(accountId: string, pinId: string): Promise<WorkflowStepRecord[]>;
  /** Deletes steps that ended before `before`, and steps of PINs no longer stored. */
  purge(before: number): Promise<number>;
}

type Db = Kysely<Database> | Transaction<Database>;

/** Makes the PIN's next step due `now` (if it is later), keeping the delays between the ones after it. */
async function pullNextStepIn(db: Db, pinId: string, now: number): Promise<boolean> {
  const next = await db.selectFrom('pin_workflow_steps').select((eb) => eb.fn.min('due_at').as('due'))
    .where('pin_id', '=', pinId).where('state', '=', 'scheduled').executeTakeFirst();
  const due = next?.due === null || next?.due === undefined ? undefined : Number(next.due);
  if (due === undefined) return false;
  const shift = due - now;
  if (shift > 0) {
    await db.updateTable('pin_workflow_steps').set((eb) => ({ due_at: eb('due_at', '-', shift) }))
      .where('pin_id', '=', pinId).where('state', '=', 'scheduled').execute();
  }
  return true;
}

/**
 * Marks a claimed step sent, inside the transaction that queues its message; false when this node no
 * longer holds the claim (its lease ran out and another node took the step over): the caller rolls
 * its transaction back. A step that runs late pushes the steps after it back as much, so each keeps
 * its delay after the one before.
 */
export async function markWorkflowStepSent(trx: Transaction<Database>, claim: WorkflowStepClaim, now: number): Promise<boolean> {
  // The race gate: only the holder of the current claim, on a step still running, marks it.
  const marked = await trx.updateTable('pin_workflow_steps')
    .set({ state: 'sent', claim: null, lease_until: null, updated_at: now })
    .where('pin_id', '=', claim.pinId).where('step', '=', claim.step).where('claim', '=', claim.claim).where('state', '=', 'running')
    .executeTakeFirst();
  if (Number(marked.numUpdatedRows) === 0) return false;
  const late = now - claim.dueAt;
  if (late > 0) {
    await trx.updateTable('pin_workflow_steps').set((eb) => ({ due_at: eb('due_at', '+', late) }))
      .where('pin_id', '=', claim.pinId).where('state', '=', 'scheduled').execute();
  }
  return true;
}

/** Thrown inside queueResend's transaction to undo it when the step's claim was lost. */
export class WorkflowClaimLost extends Error {}

export class KyselyWorkflowStore implements WorkflowStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
    private readonly deferred: <T>(work: (db: Kysely<Database>) => Promise<T>) => Promise<T>,
  ) {}

  async setWorkflow(accountId: string, applicationId: string, steps: readonly WorkflowStep[] | null, now: number): Promise<boolean> {
    const result = await this.db.updateTable('applications').set({ workflow: steps === null ? null : JSON.stringify(steps), updated_at: now })
      .where('id', '=', applicationId).where('account_id', '=', accountId).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async schedule(accountId: string, pinId: string, steps: NewWorkflowStep[], now: number): Promise<void> {
    if (steps.length === 0) return;
    await this.deferred((db) => db.insertInto('pin_workflow_steps').values(steps.map((s) => ({
      pin_id: pinId, step: s.step, account_id: accountId, channel: s.channel, state: s.state, due_at: s.dueAt,
      claim: null, lease_until: null, reason: s.reason, updated_at: now,
    }))).execute());
  }

  async discard(pinId: string): Promise<void> {
    await this.db.deleteFrom('pin_workflow_steps').where('pin_id', '=', pinId).execute();
  }

  async claimDue(now: number, leaseUntil: number, max: number): Promise<WorkflowStepClaim[]> {
    const claim = randomUUID();
    // One statement: the subquery picks due steps (and steps whose claimer's lease ran out) that no
    // earlier step of the same PIN is waiting before; on PostgreSQL SKIP LOCKED lets nodes claiming at
    // once take different steps, and the outer UPDATE takes each for exactly one of them.
    const lock = this.dialect === 'postgres' ? sql`for update skip locked` : sql``;
    const rows = await sql<{ pin_id: string; step: number; account_id: string; channel: string; due_at: number | string; message_request: string | null }>`
      update pin_workflow_steps set state = 'running', claim = ${claim}, lease_until = ${leaseUntil}, updated_at = ${now}
      where (pin_id, step) in (
        select s.pin_id, s.step from pin_workflow_steps s
        where ((s.state = 'scheduled' and s.due_at <= ${now}) or (s.state = 'running' and s.lease_until <= ${now}))
          and not exists (select 1 from pin_workflow_steps e where e.pin_id = s.pin_id and e.step < s.step and e.state in ('scheduled', 'running'))
        order by s.due_at limit ${max} ${lock})
      returning pin_id, step, account_id, channel, due_at,
        (select p.message_request from pins p where p.id = pin_workflow_steps.pin_id) as message_request`.execute(this.db);
    return rows.rows.map((r) => ({
      pinId: r.pin_id, step: Number(r.step), accountId: r.account_id, channel: r.channel as Channel, dueAt: Number(r.due_at), claim,
      firstRequest: r.message_request === null ? { placeholders: {} } : JSON.parse(r.message_request) as DeliveryRequest,
    }));
  }

  async finish(claim: WorkflowStepClaim, state: 'skipped' | 'cancelled', reason: string, now: number, then: 'advance' | 'cancel'): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const ended = await trx.updateTable('pin_workflow_steps').set({ state, reason, claim: null, lease_until: null, updated_at: now })
        .where('pin_id', '=', claim.pinId).where('step', '=', claim.step).where('claim', '=', claim.claim).where('state', '=', 'running')
        .executeTakeFirst();
      if (Number(ended.numUpdatedRows) === 0) return;
      if (then === 'advance') await pullNextStepIn(trx, claim.pinId, now);
      else await cancelRemaining(trx, claim.pinId, reason, now);
    });
  }

  async deliveryFailed(pinId: string, channel: Channel | undefined, reason: string, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const latest = await trx.selectFrom('pin_workflow_steps').select(['step', 'channel', 'state'])
        .where('pin_id', '=', pinId).where('state', 'in', ['sent', 'failed']).orderBy('step', 'desc').limit(1).executeTakeFirst();
      // A failure of an earlier step's message, reported after a later step went out, moves nothing.
      if (!latest || (channel !== undefined && latest.channel !== channel) || latest.state !== 'sent') return false;
      await trx.updateTable('pin_workflow_steps').set({ state: 'failed', reason, updated_at: now })
        .where('pin_id', '=', pinId).where('step', '=', latest.step).where('state', '=', 'sent').execute();
      return pullNextStepIn(trx, pinId, now);
    });
  }

  advance(pinId: string, now: number): Promise<boolean> {
    return pullNextStepIn(this.db, pinId, now);
  }

  async list(accountId: string, pinId: string): Promise<WorkflowStepRecord[]> {
    const rows = await this.db.selectFrom('pin_workflow_steps').select(['step', 'channel', 'state', 'due_at', 'reason', 'updated_at'])
      .where('pin_id', '=', pinId).where('account_id', '=', accountId).orderBy('step').execute();
    return rows.map((r) => ({
      step: Number(r.step), channel: r.channel as Channel, state: r.state as WorkflowStepState,
      dueAt: r.due_at === null ? null : Number(r.due_at), reason: r.reason, updatedAt: Number(r.updated_at),
    }));
  }

  async purge(before: number): Promise<number> {
    const ended = await this.db.deleteFrom('pin_workflow_steps')
      .where((eb) => eb.or([
        eb.and([eb('state', 'in', ['sent', 'failed', 'skipped', 'cancelled']), eb('updated_at', '<', before)]),
        eb.not(eb.exists(eb.selectFrom('pins').select('pins.id').whereRef('pins.id', '=', 'pin_workflow_steps.pin_id'))).and('updated_at', '<', before),
      ])).executeTakeFirst();
    return Number(ended.numDeletedRows);
  }
}

async function cancelRemaining(db: Db, pinId: string, reason: string, now: number): Promise<void> {
  await db.updateTable('pin_workflow_steps').set({ state: 'cancelled', reason, updated_at: now })
    .where('pin_id', '=', pinId).where('state', '=', 'scheduled').execute();
}
