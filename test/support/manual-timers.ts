// A RetryTimer (service/delivery-tracking.ts) that fires only when the test says so: a test can
// place the retry of a receipt exactly after the event it waits for, with no sleeping.
import type { RetryTimer } from '../../src/service/delivery-tracking.js';

export class ManualTimers {
  private readonly waiting = new Set<{ ms: number; run: () => void }>();

  readonly timer: RetryTimer = (run, ms) => {
    const entry = { ms, run };
    this.waiting.add(entry);
    return () => this.waiting.delete(entry);
  };

  /** The delays of the timers waiting, in the order they were set. */
  get pending(): number[] {
    return [...this.waiting].map((t) => t.ms);
  }

  /** Fires every timer waiting now (not those their runs set). */
  fireAll(): void {
    const due = [...this.waiting];
    this.waiting.clear();
    for (const t of due) t.run();
  }
}
