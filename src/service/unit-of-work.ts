// The unit of work every write-path use case runs in (DESIGN.md: "Durability and audit are
// structural"). Stores commit the hot writes without waiting for the disk and append audit entries in
// the write's own transaction where they can; the unit does the rest in one place, so that a use case
// cannot forget either: it appends every entry no store appended, failing the request when one cannot
// be written (a decision is never answered unaudited), then waits until every commit so far is durable
// (Store.durable()), whatever the use case answered or threw, before the answer leaves.
//
// An append that fails after its write committed fails a request whose effect stays: a client that
// retries a send may then send a second PIN. That is the price of "every decision is audited"; the
// append is a single insert on the database that has just committed the write, so it fails with it.
import type { AuditAppend } from '../store/audit-store.js';
import { auditAppendOf, type AuditEvent } from './audit-log.js';
import type { Principal, ServiceContext } from './context.js';

export interface UnitOfWork {
  readonly ctx: ServiceContext;
  /** Who asked: the actor and the source address of every entry the unit appends. */
  readonly principal: Principal;
  /** Records an entry of this request, appended before the answer. */
  audit(event: AuditEvent): void;
  /**
   * Runs a store write that can append its outcome's entry in its own transaction: `write` is given
   * the sealing of that entry (`eventOf` the outcome); when the store reports it did not append it
   * (`audited` not true), the unit appends it.
   */
  write<O, R extends O & { audited?: boolean }>(eventOf: (outcome: O) => AuditEvent, write: (audit: (outcome: O) => AuditAppend) => Promise<R>): Promise<R>;
}

/**
 * Runs a use case in a unit of work (see above). `within`: the unit of a use case this one is part of
 * (a Twilio start that sends a PIN): its entries and its wait are that unit's, done once at its end.
 */
export async function inUnitOfWork<T>(ctx: ServiceContext, principal: Principal, work: (unit: UnitOfWork) => Promise<T>, within?: UnitOfWork): Promise<T> {
  if (within) return work(within);
  const pending: AuditAppend[] = [];
  const unit: UnitOfWork = {
    ctx, principal,
    audit: (event) => { pending.push(auditAppendOf(ctx, principal, event)); },
    async write(eventOf, write) {
      const result = await write((outcome) => auditAppendOf(ctx, principal, eventOf(outcome)));
      if (result.audited !== true) unit.audit(eventOf(result));
      return result;
    },
  };
  try {
    const answer = await work(unit);
    await appendAll(ctx, pending);
    return answer;
  } catch (err) {
    // What committed before the failure is still recorded; the request fails with its own error.
    await appendAll(ctx, pending).catch(() => undefined);
    throw err;
  } finally {
    await ctx.store.durable();
  }
}

/** Appends the entries in order; throws at the first that cannot be written (after counting it). */
async function appendAll(ctx: ServiceContext, entries: AuditAppend[]): Promise<void> {
  for (const { entry, seal } of entries.splice(0)) {
    try {
      await ctx.store.audit.append(entry, seal);
    } catch (err) {
      ctx.metrics.auditFailure();
      throw err;
    }
  }
}
