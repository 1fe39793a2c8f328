// Use cases of delivery tracking: a provider's receipt updates the PIN it concerns, and an account
// reads a PIN's state and delivery history (never the PIN itself).
import { ok, pinNotFound, type Result } from '../domain/errors.js';
import { pinState, type PinState } from '../domain/pin-lifecycle.js';
import type { DeliveryEvent, PinRecord, ReceiptInput } from '../store/store.js';
import { appendAudit } from './audit-log.js';
import type { Principal, ServiceContext } from './context.js';
import { readApplication } from './effective-records.js';
import { destinationSendLimit } from './send-pin.js';
import { listPinWorkflow, workflowDeliveryFailed } from './workflows.js';
import type { WorkflowStepRecord } from '../store/workflow-store.js';

/** Applies a receipt; false when it matches no message we sent (stale, or not ours). */
export async function recordDeliveryReceipt(ctx: ServiceContext, receipt: ReceiptInput): Promise<boolean> {
  const failover = ctx.receiptFailover === undefined ? undefined : { routes: ctx.receiptFailover, now: ctx.clock() };
  const matched = await ctx.store.recordReceipt(receipt, failover);
  ctx.metrics.receipt(receipt.transport, matched ? receipt.status : 'unmatched');
  // Queued again for the next member of a failover route: start the worker now rather than at its next poll.
  if (matched?.requeued) ctx.messageQueued();
  // A receipt that fails the PIN's latest message (not one a failover route sends again) moves its workflow on.
  if (matched && receipt.status === 'undelivered' && !matched.requeued) await failedLatestMessage(ctx, matched, receipt);
  if (matched) {
    await appendAudit(ctx, {
      accountId: matched.accountId, at: ctx.clock(), event: `delivery.${receipt.status}`, pinId: matched.pinId, actor: receipt.transport,
      reason: receipt.error ?? receipt.status,
    });
    await ctx.store.durable();
  }
  return matched !== undefined;
}

async function failedLatestMessage(ctx: ServiceContext, matched: { pinId: string; accountId: string }, receipt: ReceiptInput): Promise<void> {
  const pin = await ctx.store.getPin(matched.accountId, matched.pinId);
  if (pin?.providerMessageId === receipt.providerMessageId) await workflowDeliveryFailed(ctx, pin.id, `undelivered: ${receipt.error ?? 'no reason given'}`);
}

export interface PinDetails {
  pin: PinRecord;
  state: PinState;
  history: DeliveryEvent[];
  /** When sendPinPerPhoneNumberLimit lets a resend of this PIN through (epoch ms); null once it can no longer be resent. */
  nextResendAt: number | null;
  /** The steps of its application's workflow, when it was sent under one. */
  workflow: WorkflowStepRecord[];
}


export async function getPinDetails(ctx: ServiceContext, principal: Principal, pinId: string): Promise<Result<PinDetails>> {
  const pin = await ctx.store.getPin(principal.accountId, pinId);
  if (!pin) return pinNotFound(pinId);
  const history = await ctx.store.listDeliveryEvents(principal.accountId, pinId);
  const now = ctx.clock();
  const state = pinState(pin, now);
  const workflow = await listPinWorkflow(ctx, principal.accountId, pinId);
  return ok({ pin, state, history, workflow, nextResendAt: state === 'pending' && pin.pinCiphertext !== null ? await nextResendOf(ctx, pin, now) : null });
}

/** A peek at the destination's send limit: counts nothing, so reading a PIN never spends a resend. */
async function nextResendOf(ctx: ServiceContext, pin: PinRecord, now: number): Promise<number> {
  const app = await readApplication(ctx, pin.accountId, pin.applicationId);
  const limit = app && destinationSendLimit(app, pin.destination);
  return limit ? ctx.store.peekRateLimit(limit, now) : now;
}
