// What a send under an application's workflow writes besides the PIN: the channel it goes out on
// first, and the rows of its later steps (service/workflows.ts runs them).
import { planWorkflow } from '../domain/workflows.js';
import type { ApplicationRecord, Channel } from '../store/store.js';
import type { NewWorkflowStep } from '../store/workflow-store.js';
import type { Principal, ServiceContext } from './context.js';

/** The actor named in the audit log for the resends a workflow makes. */
export const WORKFLOW_ACTOR = 'workflow';

/** Who a workflow's resends act as: the account, under WORKFLOW_ACTOR. */
export function workflowPrincipal(accountId: string): Principal {
  return { accountId, keyId: WORKFLOW_ACTOR, scopes: [] };
}

export interface SendPlan {
  /** The channel the send itself goes out on. */
  channel: Channel;
  /** The PIN's step rows for a send at `now`. */
  steps(now: number): NewWorkflowStep[];
}

/**
 * The plan of a send under the application's workflow; undefined without one. The destination's type
 * is the one the request asked for (a phone number for /2fa/2/pin, an address for /pin/email): steps
 * that cannot reach it, or whose channel has no transport, are recorded as skipped. When no step can,
 * the PIN goes out as asked and the steps show why none ran.
 */
export function planSend(ctx: ServiceContext, app: ApplicationRecord, requested: Channel): SendPlan | undefined {
  if (!app.workflow || app.workflow.length === 0) return undefined;
  const planned = planWorkflow(app.workflow, requested !== 'email', ctx.channelConfigured);
  const first = planned.find((s) => s.state === 'go');
  return {
    channel: first?.channel ?? requested,
    steps(now) {
      let due = now;
      return planned.map((s): NewWorkflowStep => {
        if (s.state === 'skipped') return { step: s.step, channel: s.channel, state: 'skipped', dueAt: null, reason: s.reason };
        due += s.delayMs;
        return { step: s.step, channel: s.channel, state: s === first ? 'sent' : 'scheduled', dueAt: due, reason: null };
      });
    },
  };
}
