// Use cases of prices and spend: what the account's messages cost over a range, grouped by country,
// transport or application (GET /api/v1/stats/spend), the price list in force (GET /api/v1/prices)
// and its reload (POST /api/v1/prices/reload).
import { budgetPeriod } from '../domain/budgets.js';
import { fail, FieldErrors, ok, type Result } from '../domain/errors.js';
import { formatMicros } from '../domain/money.js';
import type { PriceMatch } from '../domain/prices.js';
import { SPEND_DIMENSIONS, type SpendDimension } from '../store/price-store.js';
import type { Principal, ServiceContext } from './context.js';

export interface SpendQuery {
  by?: string;
  /** UNIX ms or an ISO 8601 date-time; default: the start of the current UTC month. */
  from?: string;
  /** Exclusive; default: now. */
  to?: string;
}

export interface SpendView {
  by: SpendDimension;
  from: number;
  to: number;
  /** One per group and currency; unpriced messages (no known price) in a group of their own, currency null. */
  groups: Array<{ key: string | null; currency: string | null; amount: string | null; messages: number; segments: number; unpriced: number }>;
  /** Per currency, every group summed. */
  totals: Array<{ currency: string; amount: string; messages: number }>;
  /** Messages with no known price: counted against no budget. */
  unpriced: number;
}

function instantOf(field: string, raw: string | undefined, errors: FieldErrors): number | undefined {
  if (raw === undefined) return undefined;
  const at = /^[0-9]{1,15}$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (Number.isNaN(at)) errors.add(field, 'must be UNIX time in milliseconds or an ISO 8601 date-time');
  return at;
}

export async function getSpend(ctx: ServiceContext, principal: Principal, query: SpendQuery): Promise<Result<SpendView>> {
  const errors = new FieldErrors();
  const by = (query.by ?? 'country') as SpendDimension;
  if (!SPEND_DIMENSIONS.includes(by)) errors.add('by', `must be one of ${SPEND_DIMENSIONS.join(', ')}`);
  const now = ctx.clock();
  const to = instantOf('to', query.to, errors) ?? now + 1;
  const from = instantOf('from', query.from, errors) ?? budgetPeriod('monthly', now).start;
  if (from >= to) errors.add('from', 'must be earlier than to');
  if (!errors.empty) return errors.result();
  const groups = await ctx.store.prices.spend(principal.accountId, by, from, to);
  const totals = new Map<string, { amount: number; messages: number }>();
  for (const g of groups) {
    if (g.currency === null) continue;
    const total = totals.get(g.currency) ?? { amount: 0, messages: 0 };
    totals.set(g.currency, { amount: total.amount + g.amount, messages: total.messages + g.messages });
  }
  return ok({
    by, from, to,
    groups: groups.map((g) => ({ key: g.key, currency: g.currency, amount: g.currency === null ? null : formatMicros(g.amount), messages: g.messages, segments: g.segments, unpriced: g.unpriced })),
    totals: [...totals].map(([currency, t]) => ({ currency, amount: formatMicros(t.amount), messages: t.messages })),
    unpriced: groups.reduce((sum, g) => sum + g.unpriced, 0),
  });
}

export interface PriceListView {
  file: string | null;
  loadedAt: number | null;
  lines: PriceMatch[];
}

/** The price list in force on this node. */
export function getPriceList(ctx: ServiceContext): Result<PriceListView> {
  const state = ctx.priceListState?.();
  return ok({ file: state?.file ?? null, loadedAt: state?.loadedAt ?? null, lines: [...(state?.lines ?? [])] });
}

/** Reads TWOFA_PRICES_FILE again on this node; an invalid file is refused whole (400, every bad line named) and the list in force kept. */
export async function reloadPriceList(ctx: ServiceContext): Promise<Result<PriceListView>> {
  if (!ctx.reloadPrices) return fail('INVALID_REQUEST', 'this node has no price list to reload');
  try {
    const state = await ctx.reloadPrices();
    return ok({ file: state.file, loadedAt: state.loadedAt, lines: [...state.lines] });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return fail('INVALID_REQUEST', message, { validationErrors: { TWOFA_PRICES_FILE: [message] } });
  }
}
