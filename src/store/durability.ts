// When a store's writes must be on disk. By default every query waits, before its caller goes on,
// until every commit made so far is durable (SQLite group commit; PostgreSQL commits are durable
// when they return). Inside deferDurability() that wait moves to one point, settleDurability():
// an HTTP request runs its queries without waiting at each commit and waits once, before its answer
// is sent. Nothing is acknowledged before it is durable either way; a request with four commits
// pays for one fsync instead of four.
import { AsyncLocalStorage } from 'node:async_hooks';

/** Something that can make every commit made so far durable. */
export interface DurabilityWaiter {
  durable(): Promise<void>;
}

interface Scope {
  pending: Set<DurabilityWaiter>;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Runs `fn` (and everything it starts) with durability waits deferred to settleDurability(). */
export function deferDurability<T>(fn: () => T): T {
  return scopes.run({ pending: new Set() }, fn);
}

/**
 * Called by a store after a query: inside deferDurability() the wait is recorded for later and
 * false is returned; outside, true (the caller must wait now).
 */
export function deferWait(waiter: DurabilityWaiter): boolean {
  const scope = scopes.getStore();
  if (scope === undefined) return false;
  scope.pending.add(waiter);
  return true;
}

/** Waits until every commit made so far by the stores used in this scope is durable. */
export async function settleDurability(): Promise<void> {
  const scope = scopes.getStore();
  if (scope === undefined || scope.pending.size === 0) return;
  const waiters = [...scope.pending];
  scope.pending.clear();
  await Promise.all(waiters.map((w) => w.durable()));
}
