// Budgets of accounts and applications (docs/routing.md#budgets): their caps (PUT/GET
// /api/v1/budget, /api/v1/applications/{appId}/budget), the charges a send carries into its write
// (the price it will cost, by the transport it is planned to take), and what a send's outcome says:
// a refusal by a cap, or a cap's spend crossing 80 % or 100 % (a budget.threshold event and a metric).
import { withAutofill } from '../domain/autofill.js';
import {
  budgetCharges, budgetKey, budgetPeriod, BUDGET_PERIODS, capPairView, crossedThresholds, parseBudgetInput,
  type Budget, type BudgetInput, type BudgetPeriod, type BudgetScope, type NamedBudgetCharge,
} from '../domain/budgets.js';
import { phoneCountry } from '../domain/destinations.js';
import { fail, ok, type Result } from '../domain/errors.js';
import { formatMicros } from '../domain/money.js';
import { budgetEventBody } from '../domain/pin-events.js';
import { priceMessage } from '../domain/price-list.js';
import { renderedSmsInfo } from '../domain/template-rendering.js';
import type { Channel, MessageTemplateRecord, RateLimitOutcome } from '../store/store.js';
import type { Principal, ServiceContext } from './context.js';
import { readApplication } from './effective-records.js';

/** A budget as the API shows it: caps as decimal strings, and what each period has spent so far. */
export interface BudgetView {
  scope: BudgetScope;
  applicationId: string | null;
  currency: string;
  daily: string | null;
  monthly: string | null;
  countries: Record<string, { daily: string | null; monthly: string | null }>;
  /** What the current day and month have spent against the caps of every message (decimal strings). */
  spent: { daily: string; monthly: string };
  updatedAt: number;
}

async function viewOf(ctx: ServiceContext, budget: Budget): Promise<BudgetView> {
  const now = ctx.clock();
  const ownerId = budget.scope === 'account' ? budget.accountId : budget.applicationId!;
  const counters = BUDGET_PERIODS.map((period) => ({ period, key: budgetKey(budget.scope, ownerId, period, null), periodStart: budgetPeriod(period, now).start }));
  const spent = await ctx.store.budgets.spent(counters);
  const of = (period: BudgetPeriod) => formatMicros(spent.get(counters.find((c) => c.period === period)!.key) ?? 0);
  return {
    scope: budget.scope, applicationId: budget.applicationId, currency: budget.currency, ...capPairView(budget.caps),
    countries: Object.fromEntries(Object.entries(budget.caps.countries).map(([country, pair]) => [country, capPairView(pair)])),
    spent: { daily: of('daily'), monthly: of('monthly') }, updatedAt: budget.updatedAt,
  };
}

function noBudget(applicationId: string | null) {
  return fail('RESOURCE_NOT_FOUND', applicationId === null ? 'the account has no budget; set one with PUT /api/v1/budget' : `application ${applicationId} has no budget; set one with PUT /api/v1/applications/${applicationId}/budget`);
}

async function checkOwner(ctx: ServiceContext, principal: Principal, applicationId: string | null): Promise<Result<void>> {
  if (applicationId === null) return ok(undefined);
  return (await readApplication(ctx, principal.accountId, applicationId)) ? ok(undefined) : fail('APPLICATION_NOT_FOUND', `application ${applicationId} does not exist`);
}

/** The account's budget (applicationId null) or an application's. */
export async function getBudget(ctx: ServiceContext, principal: Principal, applicationId: string | null): Promise<Result<BudgetView>> {
  const owner = await checkOwner(ctx, principal, applicationId);
  if (!owner.ok) return owner;
  const budget = await ctx.store.budgets.get(principal.accountId, applicationId);
  return budget ? ok(await viewOf(ctx, budget)) : noBudget(applicationId);
}

/** Sets (replaces) a budget; the spend of the current periods is kept, so a lowered cap refuses at once. */
export async function putBudget(ctx: ServiceContext, principal: Principal, applicationId: string | null, input: BudgetInput): Promise<Result<BudgetView>> {
  const owner = await checkOwner(ctx, principal, applicationId);
  if (!owner.ok) return owner;
  const parsed = parseBudgetInput(input);
  if (!parsed.ok) return parsed;
  const budget: Budget = { scope: applicationId === null ? 'account' : 'application', accountId: principal.accountId, applicationId, ...parsed.value, updatedAt: ctx.clock() };
  await ctx.store.budgets.put(budget);
  return ok(await viewOf(ctx, budget));
}

export async function deleteBudget(ctx: ServiceContext, principal: Principal, applicationId: string | null): Promise<Result<void>> {
  const owner = await checkOwner(ctx, principal, applicationId);
  if (!owner.ok) return owner;
  return (await ctx.store.budgets.delete(principal.accountId, applicationId)) ? ok(undefined) : noBudget(applicationId);
}

/** SMS parts the message will take (1 on any other channel), measured as delivery will render it. */
function plannedSegments(template: MessageTemplateRecord, channel: Channel, placeholders: Record<string, string>): number {
  if (channel !== 'sms' || template.kind !== 'sms_voice') return 1;
  return renderedSmsInfo(withAutofill(template.messageText, template.autofill), template.pinLength, placeholders).segments;
}

/** A message about to be sent (or refused), as its price is estimated. */
export interface PlannedMessage {
  channel: Channel;
  to: string;
  template: MessageTemplateRecord;
  placeholders: Record<string, string>;
}

/**
 * What a message will cost: the price list's line for the transport it is planned to take first
 * (ServiceContext.plannedTransports) x its SMS parts. Undefined without a price list, for an email, or
 * for a message with no known price.
 */
export async function estimatedMessagePrice(ctx: ServiceContext, applicationId: string, message: PlannedMessage): Promise<{ amountMicros: number; currency: string; country: string | null } | undefined> {
  if (!ctx.prices || !ctx.plannedTransports || message.channel === 'email') return undefined;
  const [transport] = await ctx.plannedTransports(message.channel, message.to, applicationId);
  if (transport === undefined) return undefined;
  const price = priceMessage(ctx.prices, { channel: message.channel, transport, to: message.to, segments: plannedSegments(message.template, message.channel, message.placeholders) }, phoneCountry);
  if (price.amount === null || price.currency === null) return undefined;
  return { amountMicros: price.amount, currency: price.currency, country: price.country };
}

/**
 * The budget caps a send or resend is charged against, at the price it will cost (estimatedMessagePrice).
 * None without a known price (the message counts against no cap, and is flagged unpriced in the spend
 * statistics once sent), or when no budget applies.
 */
export async function plannedBudgetCharges(ctx: ServiceContext, accountId: string, applicationId: string, message: PlannedMessage, now: number): Promise<NamedBudgetCharge[]> {
  const price = await estimatedMessagePrice(ctx, applicationId, message);
  if (!price) return [];
  const budgets = await ctx.store.budgets.ofSend(accountId, applicationId);
  return budgetCharges(budgets, price.amountMicros, price.currency, price.country, now);
}

function capName(charge: NamedBudgetCharge): string {
  return `the ${charge.scope === 'account' ? 'account' : `application ${charge.ownerId}`}'s ${charge.period} budget${charge.country === null ? '' : ` for ${charge.country}`} of ${formatMicros(charge.cap)} ${charge.currency}`;
}

/** The charge a refusal names, if a budget cap (not a limit) refused. */
export function refusingCharge(charges: readonly NamedBudgetCharge[], outcome: RateLimitOutcome): NamedBudgetCharge | undefined {
  return outcome.allowed ? undefined : charges.find((c) => c.key === outcome.key);
}

/**
 * The answer to a send refused by a budget cap, with its metric and, the first time in the period,
 * its budget.threshold event at 100 %.
 */
export async function budgetRefusal(ctx: ServiceContext, accountId: string, charge: NamedBudgetCharge, outcome: Extract<RateLimitOutcome, { allowed: false }>) {
  ctx.metrics.budget(charge.scope, charge.period, 'refused');
  const spent = (await ctx.store.budgets.spent([charge])).get(charge.key) ?? 0;
  if (await ctx.store.budgets.markFull(charge)) await reportThreshold(ctx, accountId, charge, spent, 100, '');
  const periodStart = new Date(budgetPeriod(charge.period, ctx.clock()).start).toISOString();
  return fail('BUDGET_EXCEEDED', `Budget exceeded: this message would cost ${formatMicros(charge.amount)} ${charge.currency} and take ${capName(charge)} past its cap `
    + `(${formatMicros(spent)} ${charge.currency} spent since ${periodStart}); nothing was sent; retry in ${Math.ceil(outcome.retryAfterMs / 1000)} s, when the period ends, or raise the budget`,
  { retryAfterMs: outcome.retryAfterMs });
}

/** After an admitted send: the thresholds its charges crossed, each reported once (the counters are exact across nodes). */
export async function reportBudgetSpend(ctx: ServiceContext, accountId: string, charges: readonly NamedBudgetCharge[], outcome: RateLimitOutcome, pinId: string): Promise<void> {
  if (!outcome.allowed || !outcome.budgetSpent) return;
  for (const charge of charges) {
    const after = outcome.budgetSpent[charge.key];
    if (after === undefined) continue;
    for (const level of crossedThresholds(charge, after)) await reportThreshold(ctx, accountId, charge, after, level, pinId);
  }
}

async function reportThreshold(ctx: ServiceContext, accountId: string, charge: NamedBudgetCharge, spent: number, level: 80 | 100, pinId: string): Promise<void> {
  ctx.metrics.budget(charge.scope, charge.period, level === 80 ? 'threshold_80' : 'threshold_100');
  const now = ctx.clock();
  await ctx.store.events.enqueueAccountEvent(accountId, 'budget.threshold', budgetEventBody(now, {
    scope: charge.scope, applicationId: charge.scope === 'application' ? charge.ownerId : null, period: charge.period, country: charge.country,
    currency: charge.currency, cap: formatMicros(charge.cap), spent: formatMicros(spent), level, periodStart: new Date(charge.periodStart).toISOString(),
  }), now, pinId);
}
