// Use cases of workflows: an application's steps (read, set, removed), the scheduler that runs each
// PIN's due steps as resends through the service layer, and the one call by which a failed delivery
// makes the next step due at once. Store side: store/workflow-store.ts.
import type { Logger } from 'pino';
import { ok, type Result } from '../domain/errors.js';
import { isDeliverable, pinState } from '../domain/pin-lifecycle.js';
import { validateWorkflow, type WorkflowStep } from '../domain/workflows.js';
import type { Channel } from '../store/store.js';
import type { WorkflowStepClaim, WorkflowStepRecord } from '../store/workflow-store.js';
import { applicationNotFound } from './applications.js';
import { inUnitOfWork } from './unit-of-work.js';
import type { Principal, ServiceContext } from './context.js';
import { resendWorkflowStep } from './send-pin.js';
import { workflowPrincipal } from './workflow-plan.js';

export interface WorkflowView {
  steps: WorkflowStep[];
}

export async function getWorkflow(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<Result<WorkflowView>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return applicationNotFound(applicationId);
  return ok({ steps: [...(app.workflow ?? [])] });
}

export async function putWorkflow(ctx: ServiceContext, principal: Principal, applicationId: string, input: { steps: Array<{ channel: string; after?: string }> }): Promise<Result<WorkflowView>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return applicationNotFound(applicationId);
  const steps = validateWorkflow(input);
  if (!steps.ok) return steps;
  return inUnitOfWork(ctx, principal, async (unit) => {
    if (!(await ctx.store.workflows.setWorkflow(principal.accountId, app.id, steps.value, ctx.clock()))) return applicationNotFound(applicationId);
    unit.audit({ event: 'config.workflow.update', applicationId: app.id, reason: steps.value.map((s) => s.after ? `${s.channel}+${s.after}` : s.channel).join(' ') });
    return ok({ steps: steps.value });
  });
}

/** Removes the workflow: later sends go out on the channel asked for; PINs already sent keep their steps. */
export async function deleteWorkflow(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<Result<null>> {
  return inUnitOfWork(ctx, principal, async (unit) => {
    if (!(await ctx.store.workflows.setWorkflow(principal.accountId, applicationId, null, ctx.clock()))) return applicationNotFound(applicationId);
    unit.audit({ event: 'config.workflow.delete', applicationId });
    return ok(null);
  });
}

/** A PIN's workflow steps, for its details (empty when it was sent without one). */
export function listPinWorkflow(ctx: ServiceContext, accountId: string, pinId: string): Promise<WorkflowStepRecord[]> {
  return ctx.store.workflows.list(accountId, pinId);
}

/**
 * A message of the PIN failed for good (the worker gave up, or a receipt said undeliverable): the
 * next step of its workflow, if any, is due now. `channel` when known: only a failure on the latest
 * step's channel moves the workflow. Never throws: it must not fail the recording of the failure.
 */
export async function workflowDeliveryFailed(ctx: ServiceContext, pinId: string, reason: string, channel?: Channel): Promise<void> {
  try {
    const moved = await ctx.store.workflows.deliveryFailed(pinId, channel, reason, ctx.clock());
    if (moved) ctx.workflowStepDue?.();
  } catch {
    // The step stays due at its own time: a failure here delays the fallback, it loses nothing.
  }
}

/** Runs one claimed step; the step's row says what became of it. */
async function runStep(ctx: ServiceContext, claim: WorkflowStepClaim): Promise<void> {
  const now = ctx.clock();
  const pin = await ctx.store.getPin(claim.accountId, claim.pinId);
  if (!pin) {
    await ctx.store.workflows.finish(claim, 'cancelled', 'the PIN no longer exists', now, 'cancel');
    return;
  }
  if (!isDeliverable(pin, now)) {
    await ctx.store.workflows.finish(claim, 'cancelled', `the PIN is ${pinState(pin, now)}`, now, 'cancel');
    return;
  }
  if (!ctx.channelConfigured(claim.channel)) {
    await ctx.store.workflows.finish(claim, 'skipped', `the ${claim.channel} channel has no transport`, now, 'advance');
    return;
  }
  await inUnitOfWork(ctx, workflowPrincipal(pin.accountId), async (unit) => {
    const sent = await resendWorkflowStep(ctx, pin, claim, unit);
    if (sent.ok) return;
    // A refused step (a limit, a guard, the inbox rule) is a failed delivery: the next step is due now.
    // A PIN that ended meanwhile, or a claim another node took over, ends nothing of someone else's:
    // finish() only touches the step while this node still holds its claim.
    const after = await ctx.store.getPin(claim.accountId, claim.pinId);
    if (!after || !isDeliverable(after, ctx.clock())) await ctx.store.workflows.finish(claim, 'cancelled', 'the PIN ended', ctx.clock(), 'cancel');
    else await ctx.store.workflows.finish(claim, 'skipped', `refused: ${sent.failure.text}`, ctx.clock(), 'advance');
    unit.audit({ event: 'pin.workflow.step.refused', applicationId: pin.applicationId, pinId: pin.id, reason: `${claim.channel}: ${sent.failure.name}` });
  });
}

export interface WorkflowSchedulerOptions {
  /** How often to look for due steps when nothing wakes the scheduler. */
  pollIntervalMs?: number;
  /** How long a claimed step is this node's; past it another node runs it. */
  leaseMs?: number;
  batchSize?: number;
}

/**
 * Runs the due steps of every PIN's workflow, on every node: each claim is exclusive (store), so with
 * several nodes on PostgreSQL each step runs on exactly one. A step is only a resend queued, so one
 * loop per node, one step at a time, keeps up with the delivery worker.
 */
export class WorkflowScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private started = false;
  private again = false;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly batchSize: number;

  constructor(private readonly ctx: ServiceContext, private readonly logger: Logger, options: WorkflowSchedulerOptions = {}) {
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.batchSize = options.batchSize ?? 20;
  }

  start(): void {
    this.started = true;
    this.wake();
  }

  /** Looks for due steps now (a failure just made one due). */
  wake(): void {
    if (!this.started) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.runDue().finally(() => {
      this.running = undefined;
      if (!this.started) return;
      if (this.again) {
        this.again = false;
        this.wake();
      } else {
        this.timer = setTimeout(() => this.wake(), this.pollIntervalMs);
        this.timer.unref();
      }
    });
  }

  /** Stops looking; resolves once the step under way is done (a step cut short is claimed again after its lease). */
  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Runs every step due now, then returns (the loop calls it; tests call it with their own clock). */
  async runDue(): Promise<void> {
    try {
      for (;;) {
        const now = this.ctx.clock();
        const claims = await this.ctx.store.workflows.claimDue(now, now + this.leaseMs, this.batchSize);
        for (const claim of claims) {
          try {
            await runStep(this.ctx, claim);
          } catch (err) {
            // Left running: its lease runs out and it is claimed again.
            this.logger.error({ err, pinId: claim.pinId, step: claim.step }, 'workflow step failed');
          }
        }
        if (claims.length < this.batchSize) return;
      }
    } catch (err) {
      this.logger.error({ err }, 'claiming workflow steps failed');
    }
  }
}
