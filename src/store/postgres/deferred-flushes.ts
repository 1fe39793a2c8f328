// PostgreSQL: the hot statements that commit without waiting for the WAL flush, and the wait that makes
// them durable before a request is answered (Store.durable()).
//
// Why: a send's statement holds its application's rate-limit bucket (every send of the application
// takes that row) until its commit ends, and a synchronous commit ends only after the WAL is flushed
// to disk, so sends of one application flushed one after the other, never together. Committed
// asynchronously, the row is released as soon as the commit record is written; the flush comes later.
//
// Why that is durable enough: PostgreSQL writes and flushes its WAL in order, so a synchronous commit
// that begins after an asynchronous one returned flushes it too, on any connection of any node. A
// request's audit entry is appended after its statement (audit-store.ts reports its commits here), so
// usually nothing is left to wait for; otherwise durable() makes such a commit itself (the barrier).
// What an asynchronous commit wrote is visible before it is durable, as with SQLite's group commit: a
// read may see it, and a write that depends on it (a claim of the PIN's message, a verify's attempt)
// commits synchronously, or is followed by a synchronous commit, before it has any effect outside.

import { named } from './named-statements.js';

/** The barrier's write to the one row of commit_barrier (migration 0025): a commit that wrote nothing would flush nothing. */
export const COMMIT_BARRIER = named('update commit_barrier set at = $1 where id = 1');

/**
 * The select-list column by which a statement commits asynchronously when its parameter `$n` is
 * true (set for its own transaction only; otherwise the session's setting is left as it is).
 */
export function commitModeColumn(n: number): string {
  return `set_config('synchronous_commit', case when $${n}::boolean then 'off' else current_setting('synchronous_commit') end, true) as commit_mode`;
}

export class DeferredFlushes {
  /** Asynchronous commits this node has seen return (or fail: they may have committed). */
  private made = 0;
  /** How many of those a synchronous commit, begun after them, has made durable. */
  private flushedUpTo = 0;
  private barrier: Promise<void> | undefined;

  /** `flush` commits synchronously something that writes WAL (a barrier). */
  constructor(private readonly flush: () => Promise<unknown>) {}

  /** Runs a statement that commits asynchronously. */
  async deferred<T>(statement: () => Promise<T>): Promise<T> {
    try {
      return await statement();
    } finally {
      this.made += 1;
    }
  }

  /** Runs a synchronous commit: once it returns, every asynchronous commit that returned before it began is durable. */
  async synchronous<T>(commit: () => Promise<T>): Promise<T> {
    const upTo = this.made;
    const result = await commit();
    if (upTo > this.flushedUpTo) this.flushedUpTo = upTo;
    return result;
  }

  /** Resolves once every asynchronous commit that returned so far is durable; one barrier serves every caller waiting meanwhile. */
  async durable(): Promise<void> {
    const target = this.made;
    while (this.flushedUpTo < target) {
      this.barrier ??= this.synchronous(this.flush).then(() => undefined).finally(() => {
        this.barrier = undefined;
      });
      await this.barrier;
    }
  }
}
