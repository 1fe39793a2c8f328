// Budgets: per account and per application, a daily and a monthly cap on what messages cost, in one
// currency, optionally per destination country. Periods are UTC days and UTC calendar months. A send
// is charged the price it will cost (price list x SMS parts) against every cap that applies, in the
// PIN's own write; one that would take a cap past its amount is refused and writes nothing.
import { FieldErrors, ok, type Result } from './errors.js';
import { formatMicros, parseMicros } from './money.js';
import { isCountryCode } from './price-list.js';

export const BUDGET_PERIODS = ['daily', 'monthly'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];
export type BudgetScope = 'account' | 'application';

/** A daily and a monthly cap in micro-units; null: none for that period. */
export interface CapPair {
  daily: number | null;
  monthly: number | null;
}

export interface BudgetCaps extends CapPair {
  /** Caps of the messages to one ISO country, besides (not instead of) the caps of all messages. */
  countries: Record<string, CapPair>;
}

export interface Budget {
  scope: BudgetScope;
  accountId: string;
  /** null for the account's own budget. */
  applicationId: string | null;
  currency: string;
  caps: BudgetCaps;
  updatedAt: number;
}

/** One cap a send is charged against: consumed atomically with its write (Store.createPin, queueResend). */
export interface BudgetCharge {
  /** The spend counter: `budget:<scope>:<id>:<period>[:<country>]`. */
  key: string;
  periodStart: number;
  /** When the period ends: the counter is deleted after it. */
  expiresAt: number;
  /** What this send costs, micro-units. */
  amount: number;
  /** The cap, micro-units: the send is refused when the period's spend would pass it. */
  cap: number;
}

/** A charge with what its refusal and its threshold events say. */
export interface NamedBudgetCharge extends BudgetCharge {
  scope: BudgetScope;
  /** The application's or the account's id. */
  ownerId: string;
  period: BudgetPeriod;
  country: string | null;
  currency: string;
}

/** The UTC day or calendar month `now` falls in. */
export function budgetPeriod(period: BudgetPeriod, now: number): { start: number; end: number } {
  const d = new Date(now);
  if (period === 'daily') {
    const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    return { start, end: start + 86_400_000 };
  }
  return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

export function budgetKey(scope: BudgetScope, ownerId: string, period: BudgetPeriod, country: string | null): string {
  return `budget:${scope === 'account' ? 'acct' : 'app'}:${ownerId}:${period}${country === null ? '' : `:${country}`}`;
}

/**
 * The caps a message of `amount` micro-units in `currency` to `country` is charged against: every
 * budget in that currency, each period with a cap, and the country's own caps. A message priced in
 * another currency than a budget's counts against none of its caps.
 */
export function budgetCharges(budgets: readonly Budget[], amount: number, currency: string, country: string | null, now: number): NamedBudgetCharge[] {
  const charges: NamedBudgetCharge[] = [];
  for (const budget of budgets) {
    if (budget.currency !== currency) continue;
    const ownerId = budget.scope === 'account' ? budget.accountId : budget.applicationId!;
    const pairs: [string | null, CapPair][] = [[null, budget.caps]];
    const countryCaps = country === null ? undefined : budget.caps.countries[country];
    if (countryCaps) pairs.push([country, countryCaps]);
    for (const [capCountry, pair] of pairs) {
      for (const period of BUDGET_PERIODS) {
        const cap = pair[period];
        if (cap === null) continue;
        const { start, end } = budgetPeriod(period, now);
        charges.push({
          key: budgetKey(budget.scope, ownerId, period, capCountry), periodStart: start, expiresAt: end, amount, cap,
          scope: budget.scope, ownerId, period, country: capCountry, currency,
        });
      }
    }
  }
  return charges;
}

/** Percentages of a cap at which a budget.threshold event and metric go out. */
export const BUDGET_THRESHOLDS = [80, 100] as const;

/** The thresholds a send's charge crossed: spend went from `after - amount` to `after`. */
export function crossedThresholds(charge: BudgetCharge, after: number): (typeof BUDGET_THRESHOLDS)[number][] {
  const before = after - charge.amount;
  // Integer arithmetic: level% of cap reached when after * 100 >= cap * level.
  return BUDGET_THRESHOLDS.filter((level) => before * 100 < charge.cap * level && after * 100 >= charge.cap * level);
}

/** The body of PUT .../budget as received: decimal strings, null or absent for no cap. */
export interface BudgetInput {
  currency: string;
  daily?: string | null;
  monthly?: string | null;
  countries?: Record<string, { daily?: string | null; monthly?: string | null }>;
}

function capOf(value: string | null | undefined, field: string, errors: FieldErrors): number | null {
  if (value === undefined || value === null) return null;
  const micros = parseMicros(value);
  if (micros === undefined || micros === 0) {
    errors.add(field, 'must be a positive decimal amount of at most 6 decimals, e.g. "25.00", or null for no cap');
    return null;
  }
  return micros;
}

/** Checks a budget body: a currency code, positive caps as decimal strings, countries as ISO codes. */
export function parseBudgetInput(input: BudgetInput): Result<Pick<Budget, 'currency' | 'caps'>> {
  const errors = new FieldErrors();
  if (typeof input.currency !== 'string' || !/^[A-Z]{3}$/i.test(input.currency)) errors.add('currency', 'must be an ISO 4217 currency code, e.g. EUR, the currency of the price list\'s lines it counts');
  const caps: BudgetCaps = { daily: capOf(input.daily, 'daily', errors), monthly: capOf(input.monthly, 'monthly', errors), countries: {} };
  for (const [country, pair] of Object.entries(input.countries ?? {})) {
    if (!isCountryCode(country)) {
      errors.add(`countries.${country}`, 'must be an ISO 3166-1 alpha-2 country code, e.g. GB');
      continue;
    }
    caps.countries[country.toUpperCase()] = { daily: capOf(pair.daily, `countries.${country}.daily`, errors), monthly: capOf(pair.monthly, `countries.${country}.monthly`, errors) };
  }
  if (!errors.empty) return errors.result();
  return ok({ currency: input.currency.toUpperCase(), caps });
}

/** A cap pair as the API writes it: decimal strings, null for none. */
export function capPairView(pair: CapPair): { daily: string | null; monthly: string | null } {
  return { daily: pair.daily === null ? null : formatMicros(pair.daily), monthly: pair.monthly === null ? null : formatMicros(pair.monthly) };
}
