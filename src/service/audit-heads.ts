// Signed heads of the audit chains (domain/audit-head.ts): how the server records them and how a
// chain is checked against them. A server records, per account whose chain grew, a head naming its
// newest entry: in the audit_heads table, in its data folder's audit-heads.json, and in an
// "audit chain head recorded" log line, every TWOFA_AUDIT_HEAD_INTERVAL and on shutdown. A chain that
// no longer holds the entry a head names lost its tail (or was rewritten past it). Such a head is
// never replaced: the evidence stays until an operator looks at `twofa audit verify`.
import { auditHeadSignatureValid, formatAuditHead, signAuditHead, type AuditHead } from '../domain/audit-head.js';
import type { PinKeyring } from '../domain/pin-secrets.js';
import { readAuditHeadFile, writeAuditHeadFile } from '../store/audit-head-file.js';
import type { ChainTip } from '../store/audit-head-store.js';
import type { Store } from '../store/store.js';

/** Something wrong with an account's chain, at the entry `seq`. */
export interface ChainProblem {
  accountId: string;
  seq: number;
  problem: string;
}

/** A head and where it was found: the audit_heads table, a file, or the command line. */
export interface SourcedHead {
  head: AuditHead;
  source: string;
}

function describe(h: SourcedHead): string {
  return `the head signed ${new Date(h.head.signedAt).toISOString()} (${h.source})`;
}

/**
 * What is wrong with the chains in the light of `heads`: a head whose signature does not verify, and
 * a chain that lost the entry a head names (deleted whole, truncated, or rewritten past it).
 */
export async function headProblems(store: Store, keyring: PinKeyring, heads: SourcedHead[], knownTips: ChainTip[] = []): Promise<ChainProblem[]> {
  const tips = new Map(knownTips.map((t) => [t.accountId, t]));
  const problems: ChainProblem[] = [];
  for (const sourced of heads) {
    const { head } = sourced;
    const at = { accountId: head.accountId, seq: head.seq };
    if (!auditHeadSignatureValid(keyring, head)) {
      problems.push({ ...at, problem: `${describe(sourced)} has an invalid signature: forged, altered, or signed under a secret not configured` });
      continue;
    }
    const tip = tips.get(head.accountId) ?? await store.audit.heads.tip(head.accountId);
    if (tip === undefined) {
      problems.push({ ...at, problem: `chain deleted: no entry is left, but ${describe(sourced)} names entry ${head.seq}` });
    } else if (tip.seq < head.seq) {
      problems.push({ ...at, problem: `chain truncated: entries ${tip.seq + 1} to ${head.seq} are missing (the chain ends at ${tip.seq}, ${describe(sourced)} names entry ${head.seq})` });
    } else {
      const hash = tip.seq === head.seq ? tip.hash : await store.audit.heads.entryHash(head.accountId, head.seq);
      if (hash === undefined) problems.push({ ...at, problem: `entry ${head.seq}, named by ${describe(sourced)}, is missing` });
      else if (hash !== head.hash) problems.push({ ...at, problem: `entry ${head.seq} is not the one ${describe(sourced)} names: the chain was rewritten past it` });
    }
  }
  return problems;
}

/** Per account, the head with the highest seq among those whose signature verifies. */
function newestValid(keyring: PinKeyring, heads: AuditHead[]): Map<string, AuditHead> {
  const newest = new Map<string, AuditHead>();
  for (const head of heads) {
    if (!auditHeadSignatureValid(keyring, head)) continue;
    const current = newest.get(head.accountId);
    if (current === undefined || head.seq > current.seq) newest.set(head.accountId, head);
  }
  return newest;
}

export interface HeadLogger {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface RecordDeps {
  store: Store;
  keyring: PinKeyring;
  clock: () => number;
  logger: HeadLogger;
  /** This node's copy (store/audit-head-file.ts); none for a node without a data folder. */
  headFile?: string;
}

export interface RecordOutcome {
  recorded: AuditHead[];
  /** Chains that lost entries a recorded head names: their heads were kept, not replaced. */
  problems: ChainProblem[];
}

/** Signs and records the head of every chain that grew since its last head. */
export async function recordAuditHeads(deps: RecordDeps): Promise<RecordOutcome> {
  const { store, keyring, logger } = deps;
  let fileHeads: AuditHead[] = [];
  let fileWritable = deps.headFile !== undefined;
  if (deps.headFile !== undefined) {
    try {
      fileHeads = readAuditHeadFile(deps.headFile);
    } catch (err) {
      // Left as it is for the operator to look at; the table and the log still get the heads.
      fileWritable = false;
      logger.error({ err, file: deps.headFile }, 'audit head file unreadable; not rewriting it');
    }
  }
  // Heads before tips: a head another node records meanwhile is then never ahead of the tips read here.
  const known = newestValid(keyring, [...await store.audit.heads.list(), ...fileHeads]);
  const tips = await store.audit.heads.tips();
  const problems = await headProblems(store, keyring, [...known.values()].map((head) => ({ head, source: 'recorded head' })), tips);
  for (const p of problems) logger.error({ accountId: p.accountId, seq: p.seq, problem: p.problem }, 'audit chain lost entries a recorded head names; that head is kept');
  const broken = new Set(problems.map((p) => p.accountId));

  const now = deps.clock();
  const recorded: AuditHead[] = [];
  for (const tip of tips) {
    const previous = known.get(tip.accountId);
    if (broken.has(tip.accountId) || (previous !== undefined && previous.seq >= tip.seq)) continue;
    const head = signAuditHead(keyring, { accountId: tip.accountId, seq: tip.seq, hash: tip.hash, signedAt: now });
    await store.audit.heads.record(head);
    known.set(head.accountId, head);
    recorded.push(head);
    logger.info({ accountId: head.accountId, seq: head.seq, auditHead: formatAuditHead(head) }, 'audit chain head recorded');
  }
  const fileBehind = [...known.values()].some((head) => !fileHeads.some((f) => f.accountId === head.accountId && f.seq === head.seq && f.hash === head.hash));
  if (deps.headFile !== undefined && fileWritable && fileBehind) writeAuditHeadFile(deps.headFile, [...known.values()]);
  return { recorded, problems };
}
