// The purge job runs on the event loop every minute, next to the requests, so each of its steps works in
// bounded batches: one statement changes at most `batch` rows (a LIMIT in a subquery of ids, which both
// dialects accept in UPDATE and DELETE), the step repeats it while it changes a full batch, up to
// `batchesPerRun` times, and gives the event loop and the connection back between batches. What is left
// is taken by the next run. With the purge indexes (migration 0006) a batch costs what it removes, not
// what is stored.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';

export interface PurgeLimits {
  /** Rows one statement changes at most. */
  batch: number;
  /** Statements one step runs at most per purge. */
  batchesPerRun: number;
}

/**
 * Requests wait behind a batch. On a database of 10^5 to 10^6 PINs whose pages are not in SQLite's
 * cache, deleting a delivery event took up to 0.4 ms (four b-trees, secure_delete): 100 rows a batch
 * keep the wait near 40 ms at worst (bench/purge-scale.ts, the scale runs of `npm run bench`). 500
 * batches a step let one run keep up with 50,000 ended PINs a minute.
 */
export const PURGE_LIMITS: PurgeLimits = { batch: 100, batchesPerRun: 500 };

/** Runs `statement` (changing at most `batch` rows, returning how many) as the limits say; returns the rows changed. */
export async function inBatches(limits: PurgeLimits, statement: (batch: number) => Promise<number | bigint>): Promise<number> {
  let total = 0;
  for (let i = 0; i < limits.batchesPerRun; i++) {
    if (i > 0) await nextTurn();
    const changed = Number(await statement(limits.batch));
    total += changed;
    if (changed < limits.batch) break;
  }
  return total;
}

/**
 * The rows of one batch, chosen by `query` (a subquery): on PostgreSQL it skips the rows another node's
 * purge is changing at that moment (FOR UPDATE SKIP LOCKED), so that nodes purging at once share the
 * rows instead of waiting, or deadlocking, on the same ones. SQLite has one writer.
 */
export function batchOf<Q extends SelectQueryBuilder<Database, never, object>>(query: Q, dialect: 'sqlite' | 'postgres'): Q {
  return dialect === 'postgres' ? query.forUpdate().skipLocked() as Q : query;
}

/** The tables the purge deletes from by their `id`. */
type IdTable = 'pins' | 'outbox' | 'delivery_events' | 'event_outbox' | 'idempotency_keys';

/**
 * Deletes, in batches, the rows of `table` whose ids `ids(batch)` selects: a subquery that seeks
 * through a purge index and ends in LIMIT batch. Returns how many it deleted.
 */
export function deleteInBatches(db: Kysely<Database>, dialect: 'sqlite' | 'postgres', limits: PurgeLimits, table: IdTable,
  ids: (batch: number) => SelectQueryBuilder<Database, IdTable, { id: string }>): Promise<number> {
  return inBatches(limits, async (batch) => (await db.deleteFrom(table).where('id', 'in', batchOf(ids(batch), dialect)).executeTakeFirst()).numDeletedRows);
}
