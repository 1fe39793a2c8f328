// The audit log's use cases: append an entry (every send, delivery outcome, verify decision and
// configuration change), read an account's entries page by page, and check the chains. A request's
// entries are appended by its unit of work (unit-of-work.ts), which fails the request when one cannot
// be written; appendAudit is for what no request waits on (a delivery outcome, an auth throttle),
// where a failed append is counted in twofa_audit_write_failures_total instead.
import type { PinKeyring } from '../domain/pin-secrets.js';
import { maskDestination } from '../domain/destinations.js';
import type { Metrics } from '../observability/metrics.js';
import { auditEntryText, type AuditAppend, type AuditEntry, type AuditEntryInput, type AuditFilter } from '../store/audit-store.js';
import type { Store } from '../store/store.js';
import { headProblems, type ChainProblem, type SourcedHead } from './audit-heads.js';
import type { Principal, ServiceContext } from './context.js';

export interface AuditEvent {
  event: string;
  applicationId?: string | null;
  pinId?: string | null;
  /** The full destination: it is masked here, before anything is written. */
  destination?: string | null;
  reason?: string | null;
}

/**
 * Appends one entry, committed but not necessarily durable yet: the caller awaits store.durable()
 * before it answers (one wait for the entry and the change it records). Never throws: for entries no
 * answer depends on (a request's own go through its unit of work, which fails the request instead).
 */
export async function appendAudit(deps: { store: Store; keyring: PinKeyring; metrics: Metrics }, entry: AuditEntryInput & { destination?: string | null }): Promise<void> {
  try {
    const { entry: masked, seal } = sealable(deps.keyring, entry);
    await deps.store.audit.append(masked, seal);
  } catch {
    deps.metrics.auditFailure();
  }
}

/**
 * The audit log of the delivery worker (delivery/outbox-worker.ts DeliveryAudit): entries sealed for
 * the store to append in the transaction of the outcome they record, and appended here when it did not.
 */
export function deliveryAudit(deps: { store: Store; keyring: PinKeyring; metrics: Metrics }): {
  sealable: (entry: AuditEntryInput & { destination?: string | null }) => AuditAppend;
  append: (entry: AuditEntryInput & { destination?: string | null }) => Promise<void>;
} {
  return { sealable: (entry) => sealable(deps.keyring, entry), append: (entry) => appendAudit(deps, entry) };
}

/** The entry with its destination masked, and the seal that hashes it under the audit key. */
function sealable(keyring: PinKeyring, entry: AuditEntryInput & { destination?: string | null }): AuditAppend {
  const masked = entry.destination === undefined || entry.destination === null ? null : maskDestination(entry.destination);
  return { entry: { ...entry, destination: masked }, seal: (unsealed) => keyring.sealAudit(auditEntryText(unsealed)) };
}

/** The entry of a request made by `principal` (its key is the actor, its address the source). */
function requestEntry(ctx: ServiceContext, principal: Principal, event: AuditEvent): AuditEntryInput {
  return {
    accountId: principal.accountId, at: ctx.clock(), event: event.event, applicationId: event.applicationId ?? null,
    pinId: event.pinId ?? null, destination: event.destination ?? null, sourceIp: principal.ip ?? null, actor: principal.keyId,
    reason: event.reason ?? null,
  };
}

/** The entry of a request made by `principal`, for a store to append in the transaction of what it records. */
export function auditAppendOf(ctx: ServiceContext, principal: Principal, event: AuditEvent): AuditAppend {
  return sealable(ctx.keyring, requestEntry(ctx, principal, event));
}

export const AUDIT_PAGE_MAX = 1000;

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass as `after` for the next page; null when this page is the last. */
  next: number | null;
}

export async function listAudit(ctx: ServiceContext, principal: Principal, filter: AuditFilter, limit: number): Promise<AuditPage> {
  const size = Math.max(1, Math.min(AUDIT_PAGE_MAX, limit));
  const entries = await ctx.store.audit.list(principal.accountId, filter, size + 1);
  const page = entries.slice(0, size);
  return { entries: page, next: entries.length > size ? (page.at(-1)?.seq ?? null) : null };
}

export interface ChainReport {
  accounts: number;
  entries: number;
  problems: ChainProblem[];
  /** Last entry of each chain. */
  heads: { accountId: string; seq: number; hash: string }[];
  /** How many signed heads (recorded by the servers, or given) the chains were checked against. */
  checkedHeads: number;
}

/**
 * Walks every chain from its first entry: sequence numbers must run 1, 2, 3... without a gap (a
 * deleted entry), each entry must name its predecessor's hash, and each hash must be the keyed HMAC
 * of its entry (an edited entry, or one forged without the secret, fails). Removing the newest
 * entries leaves a consistent shorter chain, and deleting a whole chain leaves nothing to walk: the
 * signed `heads` (audit-heads.ts) catch both, as every chain must still hold the entry each names.
 */
export async function verifyAuditChains(store: Store, keyring: PinKeyring, heads: SourcedHead[] = [], pageSize = 5000): Promise<ChainReport> {
  const report: ChainReport = { accounts: 0, entries: 0, problems: [], heads: [], checkedHeads: heads.length };
  for (const accountId of await store.audit.accounts()) {
    report.accounts += 1;
    let expectedSeq = 1;
    let prevHash = '';
    let after = 0;
    for (;;) {
      const page = await store.audit.list(accountId, { afterSeq: after }, pageSize);
      for (const entry of page) {
        report.entries += 1;
        if (entry.seq !== expectedSeq) {
          report.problems.push({ accountId, seq: entry.seq, problem: entry.seq > expectedSeq ? `entries ${expectedSeq} to ${entry.seq - 1} are missing` : `sequence number repeats (expected ${expectedSeq})` });
        }
        if (entry.prevHash !== prevHash) report.problems.push({ accountId, seq: entry.seq, problem: 'does not follow the previous entry (prev_hash differs)' });
        const { hash, ...unsealed } = entry;
        if (!keyring.checkAuditSeal(hash, auditEntryText(unsealed))) report.problems.push({ accountId, seq: entry.seq, problem: 'hash does not match the entry (edited, or sealed under an unknown secret)' });
        expectedSeq = entry.seq + 1;
        prevHash = entry.hash;
        after = entry.seq;
      }
      if (page.length < pageSize) break;
    }
    if (after > 0) report.heads.push({ accountId, seq: after, hash: prevHash });
  }
  report.problems.push(...await headProblems(store, keyring, heads));
  return report;
}
