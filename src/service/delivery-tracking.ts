// Use cases of delivery tracking: a provider's receipt updates the PIN it concerns (and may send the
// message again through the next member of a failover route), and an account reads a PIN's state and
// delivery history (never the PIN itself).
import { parseMicros } from '../domain/money.js';
import type { MessagePriceRecord } from '../store/price-store.js';
import { riskDecisionOfPin, type RiskDecisionView } from './risk.js';
import type { RiskSummary } from '../domain/risk-score.js';
import type { Logger } from 'pino';
import type { FailoverRoutes } from '../delivery/routing/routed-transport.js';
import type { DeliveryReceipt } from '../delivery/transport.js';
import { ok, pinNotFound, type Result } from '../domain/errors.js';
import { pinState, type PinState } from '../domain/pin-lifecycle.js';
import type { DeliveryEvent, DeliveryRequest, PinRecord, ReceiptInput } from '../store/store.js';
import { appendAudit } from './audit-log.js';
import type { Principal, ServiceContext } from './context.js';
import { readApplication } from './effective-records.js';
import { destinationSendLimit } from './send-pin.js';
import { listPinWorkflow, workflowDeliveryFailed } from './workflows.js';
import type { WorkflowStepRecord } from '../store/workflow-store.js';

/**
 * A provider may report on a message before the worker has recorded the provider's id for it (a fast
 * SMSC's deliver_sm, a status callback that overtakes the answer to the send): a receipt that matches
 * no message is tried again after each of these delays, then given up.
 */
export const RECEIPT_RETRIES_MS: readonly number[] = [1000, 5000];

/** Runs `run` once after `ms` and returns what cancels it. */
export type RetryTimer = (run: () => void, ms: number) => () => void;

/** The node's: a retry never keeps the process alive. */
export const unrefTimer: RetryTimer = (run, ms) => {
  const timer = setTimeout(run, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

export interface DeliveryTrackingOptions {
  /** Which members the channels' failover routes have: the port through which a failover is decided. */
  routes: FailoverRoutes;
  logger: Logger;
  /** Default unrefTimer; tests fire the retries themselves. */
  timer?: RetryTimer;
}

/** What became of a receipt handed to DeliveryTracking.receive, as far as its first try tells. */
export type ReceiptOutcome = 'applied' | 'retrying' | 'ignored';

/**
 * The one way in for delivery receipts: the SMPP transport's deliver_sm and the HTTP providers'
 * status callbacks (http/routes/api-v1/provider-callback.ts) both hand theirs to receive(), so both
 * get the same failover, audit and retry.
 */
export class DeliveryTracking {
  private readonly routes: FailoverRoutes;
  private readonly logger: Logger;
  private readonly timer: RetryTimer;
  /** Receipts waiting for their next try, with what cancels it. */
  private readonly waiting = new Set<{ receipt: DeliveryReceipt; cancel: () => void }>();
  private readonly running = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(private readonly ctx: ServiceContext, options: DeliveryTrackingOptions) {
    this.routes = options.routes;
    this.logger = options.logger;
    this.timer = options.timer ?? unrefTimer;
  }

  /**
   * Applies a receipt now, or, when it matches no message yet, schedules its next try. Never
   * rejects: what cannot be applied is logged.
   */
  receive(receipt: DeliveryReceipt): Promise<ReceiptOutcome> {
    return this.track(this.attempt(receipt, 0));
  }

  /** Resolves once no try is running (retries still waiting are not waited for). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Cancels the retries still waiting (logged as given up) and waits for the tries running. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const { receipt, cancel } of this.waiting) {
      cancel();
      this.giveUp(receipt, 'the node stopped before its next try');
    }
    this.waiting.clear();
    await this.settled();
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.running.add(work);
    const done = () => { this.running.delete(work); };
    work.then(done, done);
    return work;
  }

  private async attempt(receipt: DeliveryReceipt, tried: number): Promise<ReceiptOutcome> {
    if (this.stopped) {
      this.giveUp(receipt, 'the node is stopping');
      return 'ignored';
    }
    try {
      if (await recordDeliveryReceipt(this.ctx, this.routes, receipt)) return 'applied';
    } catch (err) {
      // Not tried again: part of it may have committed, and a second try would record it twice.
      this.logger.error({ err, transport: receipt.transport, providerMessageId: receipt.providerMessageId }, 'could not record a delivery receipt');
      return 'ignored';
    }
    const delay = RECEIPT_RETRIES_MS[tried];
    if (delay === undefined) {
      this.giveUp(receipt, `no message matched it after ${tried + 1} tries`);
      return 'ignored';
    }
    const waiting = {
      receipt,
      cancel: this.timer(() => {
        this.waiting.delete(waiting);
        void this.track(this.attempt(receipt, tried + 1));
      }, delay),
    };
    this.waiting.add(waiting);
    return 'retrying';
  }

  /** The receipt carries no destination: the log names the message by transport and provider id only. */
  private giveUp(receipt: DeliveryReceipt, reason: string): void {
    this.ctx.metrics.receipt(receipt.transport, 'unmatched');
    this.logger.warn({ transport: receipt.transport, providerMessageId: receipt.providerMessageId, status: receipt.status, reason }, 'delivery receipt for an unknown message ignored');
  }
}

/**
 * The failover decision for a message a receipt reported undeliverable through `failed`: the request
 * to send it again with (the members tried so far to be skipped), or undefined when the channel's
 * transport is no failover route, `failed` is none of its members, or no member is left to try.
 */
export function failoverRequest(members: readonly string[] | undefined, request: DeliveryRequest, failed: string): DeliveryRequest | undefined {
  if (members === undefined || !members.includes(failed)) return undefined;
  const skipTransports = [...new Set([...(request.skipTransports ?? []), failed])];
  return members.some((m) => !skipTransports.includes(m)) ? { ...request, skipTransports } : undefined;
}

/** Applies a receipt once; false when it matches no message (stale, not ours, or not recorded yet). */
async function recordDeliveryReceipt(ctx: ServiceContext, routes: FailoverRoutes, receipt: ReceiptInput): Promise<boolean> {
  const now = ctx.clock();
  let requeue: DeliveryRequest | undefined;
  if (receipt.status === 'undelivered' && routes.hasMember(receipt.transport)) {
    const message = await ctx.store.findReceiptMessage(receipt);
    if (message === undefined) return false;
    requeue = failoverRequest(routes.membersOf(message.channel), message.request, receipt.transport);
  }
  // The store queues `requeue` only while the PIN still names this message, is live and has nothing else queued.
  const matched = await ctx.store.recordReceipt(receipt, { now, ...(requeue !== undefined && { requeue }) });
  if (matched === undefined) return false;
  ctx.metrics.receipt(receipt.transport, receipt.status);
  // The provider's own word on what the message cost replaces the price list's (Infobip's delivery reports).
  if (receipt.price) {
    const amount = parseMicros(receipt.price.amount);
    if (amount !== undefined) await ctx.store.prices.reportProviderPrice(matched.pinId, receipt.providerMessageId, amount, receipt.price.currency);
  }
  // Queued again for the next member of a failover route: start the worker now rather than at its next poll.
  if (matched.requeued) ctx.messageQueued();
  // A receipt that fails the PIN's latest message (not one a failover route sends again) moves its workflow on.
  if (receipt.status === 'undelivered' && !matched.requeued) await failedLatestMessage(ctx, matched, receipt);
  // Never throws, unlike a request's unit of work: the receipt is applied already, and failing it
  // would only make the provider send again a receipt that now matches nothing.
  await appendAudit(ctx, {
    accountId: matched.accountId, at: ctx.clock(), event: `delivery.${receipt.status}`, pinId: matched.pinId, actor: receipt.transport,
    reason: receipt.error ?? receipt.status,
  });
  await ctx.store.durable();
  return true;
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
  /** Its send's risk assessment, when recorded (every shadow block, one allowed send in 20). */
  risk: RiskDecisionView | null;
  /** The summary of the assessment it was sent under (every scored PIN), as its webhook events carry it. */
  assessment: RiskSummary | null;
  /** The messages transports took for it, each with its price (price list x SMS parts, or the provider's), oldest first. */
  messages: MessagePriceRecord[];
}


export async function getPinDetails(ctx: ServiceContext, principal: Principal, pinId: string): Promise<Result<PinDetails>> {
  const pin = await ctx.store.getPin(principal.accountId, pinId);
  if (!pin) return pinNotFound(pinId);
  const history = await ctx.store.listDeliveryEvents(principal.accountId, pinId);
  const now = ctx.clock();
  const state = pinState(pin, now);
  const workflow = await listPinWorkflow(ctx, principal.accountId, pinId);
  const risk = await riskDecisionOfPin(ctx, principal.accountId, pinId);
  const assessment = await ctx.store.risk.summaryOfPin(principal.accountId, pinId);
  const messages = await ctx.store.prices.listForPin(principal.accountId, pinId);
  return ok({
    pin, state, history, workflow, risk, assessment: assessment === undefined ? null : JSON.parse(assessment) as RiskSummary, messages,
    nextResendAt: state === 'pending' && pin.pinCiphertext !== null ? await nextResendOf(ctx, pin, now) : null,
  });
}

/** A peek at the destination's send limit: counts nothing, so reading a PIN never spends a resend. */
async function nextResendOf(ctx: ServiceContext, pin: PinRecord, now: number): Promise<number> {
  const app = await readApplication(ctx, pin.accountId, pin.applicationId);
  const limit = app && destinationSendLimit(app, pin.destination);
  return limit ? ctx.store.peekRateLimit(limit, now) : now;
}
