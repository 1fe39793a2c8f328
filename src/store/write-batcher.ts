// Writes that arrive while an earlier one is under way are written together by the next one, in one
// transaction: a busy delivery worker finishing dozens of messages at once pays for one BEGIN and one
// COMMIT (and writes the pages those messages share once) instead of one transaction each. An idle
// service writes each at once, as before. The audit log batches its appends the same way, per chain.

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class WriteBatcher<T> {
  private waiting: Waiting<T>[] = [];
  private writing = false;

  /** `writeAll` writes the items in one transaction; if it throws, every item of that batch fails with it. */
  constructor(private readonly writeAll: (items: T[]) => Promise<void>, private readonly maxBatch = 200) {}

  /** Resolves once `item` is written (committed) with the batch it joined. */
  submit(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.maxBatch);
        try {
          await this.writeAll(batch.map((w) => w.item));
          for (const w of batch) w.resolve();
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
