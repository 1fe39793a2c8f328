// Budgets (migration 0032): each account's and application's caps, and what each period spent
// (budget_spend), the counters a send's write consumes atomically (kysely-store.ts createPin and
// queueResend; sqlite/budget-statements.ts, postgres/hot-statements.ts). Read here: the budgets of a
// send, the spend of a budget's current periods, and which cap refused a send.
import type { Kysely, Transaction } from 'kysely';
import type { Budget, BudgetCaps, BudgetCharge } from '../domain/budgets.js';
import type { Database } from './schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** A send refused by a cap, as a refused limit is (store.ts RateLimitOutcome): its key, and when its period ends. */
export interface BudgetRefusalOutcome {
  allowed: false;
  key: string;
  retryAfterMs: number;
}

/** The account's own budget is stored under this application id. */
const ACCOUNT_BUDGET = '';

export interface BudgetStore {
  /** The account's budget (applicationId null) or an application's. */
  get(accountId: string, applicationId: string | null): Promise<Budget | undefined>;
  /** The budgets a send of this application is charged against: the application's and its account's, in one read. */
  ofSend(accountId: string, applicationId: string): Promise<Budget[]>;
  put(budget: Budget): Promise<void>;
  /** False when there was none. */
  delete(accountId: string, applicationId: string | null): Promise<boolean>;
  /** What each counter has spent in its period (0 when nothing yet), by key. */
  spent(counters: readonly Pick<BudgetCharge, 'key' | 'periodStart'>[]): Promise<Map<string, number>>;
  /** The refusal of a send whose budget statement was refused: the first cap the charges would pass (the send counted nothing). */
  refusal(charges: readonly BudgetCharge[], now: number): Promise<BudgetRefusalOutcome>;
  /**
   * Marks the period's 100 % event as sent, once: true for the one caller that flips it (on any
   * node), while the spend is still below the cap (a send that reached it exactly reported it already).
   */
  markFull(charge: BudgetCharge): Promise<boolean>;
  /** Deletes the counters of ended periods. */
  purge(now: number): Promise<number>;
}

function budgetOf(row: { account_id: string; application_id: string; currency: string; caps: string; updated_at: number }): Budget {
  const applicationId = row.application_id === ACCOUNT_BUDGET ? null : row.application_id;
  return {
    scope: applicationId === null ? 'account' : 'application', accountId: row.account_id, applicationId,
    currency: row.currency, caps: JSON.parse(row.caps) as BudgetCaps, updatedAt: Number(row.updated_at),
  };
}

/** The refusal of the first charge that would pass its cap given what was spent; undefined when all fit. */
export function firstCrossing(charges: readonly BudgetCharge[], spent: (charge: BudgetCharge) => number, now: number): BudgetRefusalOutcome | undefined {
  const crossing = charges.find((c) => spent(c) + c.amount > c.cap);
  return crossing && { allowed: false, key: crossing.key, retryAfterMs: Math.max(1, crossing.expiresAt - now) };
}

export class KyselyBudgetStore implements BudgetStore {
  constructor(private readonly db: Kysely<Database>) {}

  async get(accountId: string, applicationId: string | null): Promise<Budget | undefined> {
    const row = await this.db.selectFrom('budgets').selectAll().where('account_id', '=', accountId).where('application_id', '=', applicationId ?? ACCOUNT_BUDGET).executeTakeFirst();
    return row && budgetOf(row);
  }

  async ofSend(accountId: string, applicationId: string): Promise<Budget[]> {
    const rows = await this.db.selectFrom('budgets').selectAll().where('account_id', '=', accountId).where('application_id', 'in', [applicationId, ACCOUNT_BUDGET]).execute();
    return rows.map(budgetOf);
  }

  async put(budget: Budget): Promise<void> {
    const values = { account_id: budget.accountId, application_id: budget.applicationId ?? ACCOUNT_BUDGET, currency: budget.currency, caps: JSON.stringify(budget.caps), updated_at: budget.updatedAt };
    await this.db.insertInto('budgets').values(values)
      .onConflict((oc) => oc.columns(['account_id', 'application_id']).doUpdateSet({ currency: values.currency, caps: values.caps, updated_at: values.updated_at })).execute();
  }

  async delete(accountId: string, applicationId: string | null): Promise<boolean> {
    const result = await this.db.deleteFrom('budgets').where('account_id', '=', accountId).where('application_id', '=', applicationId ?? ACCOUNT_BUDGET).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async spent(counters: readonly Pick<BudgetCharge, 'key' | 'periodStart'>[], db: Db = this.db): Promise<Map<string, number>> {
    const spent = new Map<string, number>();
    if (counters.length === 0) return spent;
    const rows = await db.selectFrom('budget_spend').select(['key', 'period_start', 'spent']).where('key', 'in', counters.map((c) => c.key)).execute();
    for (const c of counters) spent.set(c.key, Number(rows.find((r) => r.key === c.key && Number(r.period_start) === c.periodStart)?.spent ?? 0));
    return spent;
  }

  async refusal(charges: readonly BudgetCharge[], now: number): Promise<BudgetRefusalOutcome> {
    const spent = await this.spent(charges);
    // Spend that fell back between the refusal and this read (none does within a period): the first cap is named.
    return firstCrossing(charges, (c) => spent.get(c.key) ?? 0, now)
      ?? { allowed: false, key: charges[0]?.key ?? '', retryAfterMs: Math.max(1, (charges[0]?.expiresAt ?? now + 1000) - now) };
  }

  /**
   * Counts the charges inside the caller's transaction (Kysely: the resend's), all checked before
   * any is counted: the refusal of the first that would pass its cap, or the spend after counting.
   * Atomic only where the transaction holds the database alone (SQLite's one connection); PostgreSQL
   * counts in one statement instead (postgres/hot-statements.ts consumeBudgets).
   */
  async consumeWithin(trx: Db, charges: readonly BudgetCharge[], now: number): Promise<{ allowed: true; budgetSpent?: Record<string, number> } | BudgetRefusalOutcome> {
    if (charges.length === 0) return { allowed: true };
    const before = await this.spent(charges, trx);
    const refused = firstCrossing(charges, (c) => before.get(c.key) ?? 0, now);
    if (refused) return refused;
    const budgetSpent: Record<string, number> = {};
    for (const c of charges) {
      await trx.insertInto('budget_spend').values({ key: c.key, period_start: c.periodStart, spent: c.amount, expires_at: c.expiresAt })
        .onConflict((oc) => oc.columns(['key', 'period_start']).doUpdateSet((eb) => ({ spent: eb('budget_spend.spent', '+', eb.ref('excluded.spent')) }))).execute();
      budgetSpent[c.key] = (before.get(c.key) ?? 0) + c.amount;
    }
    return { allowed: true, budgetSpent };
  }

  async markFull(charge: BudgetCharge): Promise<boolean> {
    // An upsert: a send whose price alone passes the cap finds no counter for the period yet.
    const result = await this.db.insertInto('budget_spend').values({ key: charge.key, period_start: charge.periodStart, spent: 0, expires_at: charge.expiresAt, full_notified: 1 })
      .onConflict((oc) => oc.columns(['key', 'period_start']).doUpdateSet({ full_notified: 1 })
        .where('budget_spend.full_notified', '=', 0).where('budget_spend.spent', '<', charge.cap))
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async purge(now: number): Promise<number> {
    const result = await this.db.deleteFrom('budget_spend').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
