// Budget counters on SQLite (budget_spend), prepared once on better-sqlite3 and run synchronously in a
// send's unit of work (pin-statements.ts): every charge is read before any is counted, and the one
// connection (nothing runs between the statements) makes the read and the count atomic.
import type BetterSqlite3 from 'better-sqlite3';
import type { BudgetCharge } from '../../domain/budgets.js';
import { firstCrossing, type BudgetRefusalOutcome } from '../budget-store.js';

export class SqliteBudgetStatements {
  private readonly read: BetterSqlite3.Statement<[string, number], { spent: number }>;
  private readonly add: BetterSqlite3.Statement<[string, number, number, number]>;

  constructor(connection: BetterSqlite3.Database) {
    this.read = connection.prepare('select spent from budget_spend where key = ? and period_start = ?');
    this.add = connection.prepare(`insert into budget_spend (key, period_start, spent, expires_at) values (?, ?, ?, ?)
      on conflict (key, period_start) do update set spent = spent + excluded.spent`);
  }

  /** Each charge's period spend now, by key. Must run inside the write transaction that counts. */
  spent(charges: readonly BudgetCharge[]): Map<string, number> {
    return new Map(charges.map((c) => [c.key, this.read.get(c.key, c.periodStart)?.spent ?? 0]));
  }

  /** The refusal of the first charge that would pass its cap, given `spent` (from spent()); undefined when all fit. */
  refusal(charges: readonly BudgetCharge[], spent: Map<string, number>, now: number): BudgetRefusalOutcome | undefined {
    return firstCrossing(charges, (c) => spent.get(c.key) ?? 0, now);
  }

  /** Counts every charge; the spend after, by key. */
  consume(charges: readonly BudgetCharge[], spent: Map<string, number>): Record<string, number> {
    const after: Record<string, number> = {};
    for (const c of charges) {
      this.add.run(c.key, c.periodStart, c.amount, c.expiresAt);
      after[c.key] = (spent.get(c.key) ?? 0) + c.amount;
    }
    return after;
  }
}
