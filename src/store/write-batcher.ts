// Writes that arrive while an earlier one is under way are written together by the next one, in one
// transaction: a busy delivery worker finishing dozens of messages at once pays for one BEGIN and one
// COMMIT (and writes the pages those messages share once) instead of one transaction each, and a
// burst of audit entries of one account costs one read of its chain's head. An idle service writes
// each at once, as before.

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export interface WriteBatcherOptions {
  /** Most items one write takes; the rest wait for the next. */
  maxBatch?: number;
  /** Called when nothing is waiting or being written any more. */
  onIdle?: () => void;
}

export class WriteBatcher<T, R = void> {
  private waiting: Waiting<T, R>[] = [];
  private writing = false;

  /**
   * `writeAll` writes the items in one transaction and returns each one's result, in order (or
   * nothing, when R is void); if it throws, every item of that batch fails with it.
   */
  constructor(private readonly writeAll: (items: T[]) => Promise<R[] | void>, private readonly options: WriteBatcherOptions = {}) {}

  /** Resolves with `item`'s result once it is written (committed) with the batch it joined. */
  submit(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.options.maxBatch ?? 200);
        try {
          const results = await this.writeAll(batch.map((w) => w.item));
          batch.forEach((w, i) => w.resolve((results ?? [])[i] as R));
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      this.writing = false;
      this.options.onIdle?.();
    }
  }
}
