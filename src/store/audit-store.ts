// The audit log: one hash chain per account. A write reads the account's last entry and appends the
// next ones (seq + 1, prev_hash = its hash) in one transaction; on SQLite the single connection
// serialises those transactions, on PostgreSQL a transaction-scoped advisory lock per account does, so
// concurrent appends from any number of nodes still form one unbroken chain. On PostgreSQL a node
// that wrote a chain's last batch appends the next one after the head it remembers, in one statement
// (the primary key (account_id, seq) refuses it when another node appended meanwhile, and the locked
// transaction runs instead). Within a node, appends
// that arrive while a write is under way are grouped into the next write (group commit). The hash itself is computed by the
// caller (`seal`), keyed by a secret that never sits in the database, so that whoever can write to the
// database cannot forge a consistent chain after editing or deleting an entry.
import { CompiledQuery, sql, type Kysely, type Selectable } from 'kysely';
import { KyselyAuditHeadStore, type AuditHeadStore } from './audit-head-store.js';
import { advisoryLockKey } from './postgres/advisory-lock.js';
import { named } from './postgres/named-statements.js';
import type { AuditLogTable, Database } from './schema.js';
import { PreparedQuery, type ParamOf } from './prepared-query.js';
import { WriteBatcher } from './write-batcher.js';

export interface AuditEntryInput {
  accountId: string;
  at: number;
  event: string;
  applicationId?: string | null;
  pinId?: string | null;
  /** Already masked. */
  destination?: string | null;
  sourceIp?: string | null;
  actor?: string | null;
  reason?: string | null;
}

export interface AuditEntry {
  accountId: string;
  seq: number;
  at: number;
  event: string;
  applicationId: string | null;
  pinId: string | null;
  destination: string | null;
  sourceIp: string | null;
  actor: string | null;
  reason: string | null;
  prevHash: string;
  hash: string;
}

/** Computes an entry's hash from the entry (with its seq) and the previous entry's hash. */
export type AuditSeal = (entry: Omit<AuditEntry, 'hash'>) => string;

/** An entry to append, with the seal that will hash it once its place in the chain is known. */
export interface AuditAppend {
  entry: AuditEntryInput;
  seal: AuditSeal;
}

/** `input` sealed as the entry after `seq - 1` (whose hash is `prevHash`) of its account's chain. */
export function chainEntry(input: AuditEntryInput, seq: number, prevHash: string, seal: AuditSeal): AuditEntry {
  const unsealed: Omit<AuditEntry, 'hash'> = {
    accountId: input.accountId, seq, at: input.at, event: input.event, applicationId: input.applicationId ?? null, pinId: input.pinId ?? null,
    destination: input.destination ?? null, sourceIp: input.sourceIp ?? null, actor: input.actor ?? null, reason: input.reason ?? null, prevHash,
  };
  return { ...unsealed, hash: seal(unsealed) };
}

export interface AuditFilter {
  applicationId?: string;
  pinId?: string;
  event?: string;
  /** Only entries after this sequence number (paging). */
  afterSeq?: number;
}

export interface AuditStore {
  append(entry: AuditEntryInput, seal: AuditSeal): Promise<AuditEntry>;
  /** Entries of one account in chain order. */
  list(accountId: string, filter: AuditFilter, limit: number): Promise<AuditEntry[]>;
  /** Every account that has a chain. */
  accounts(): Promise<string[]>;
  /** The chains' signed heads, kept apart from the entries (audit-head-store.ts). */
  readonly heads: AuditHeadStore;
}

/** The canonical text an entry's hash covers: every field, the previous hash included, in a fixed order. */
export function auditEntryText(e: Omit<AuditEntry, 'hash'>): string {
  return JSON.stringify([e.accountId, e.seq, e.at, e.event, e.applicationId, e.pinId, e.destination, e.sourceIp, e.actor, e.reason, e.prevHash]);
}

function toEntry(row: Selectable<AuditLogTable>): AuditEntry {
  return {
    accountId: row.account_id, seq: Number(row.seq), at: Number(row.at), event: row.event, applicationId: row.application_id,
    pinId: row.pin_id, destination: row.destination, sourceIp: row.source_ip, actor: row.actor, reason: row.reason,
    prevHash: row.prev_hash, hash: row.hash,
  };
}

interface PendingAppend {
  input: AuditEntryInput;
  seal: AuditSeal;
}

const INSERT_ENTRIES_POSTGRES = named(`insert into audit_log (account_id, seq, at, event, application_id, pin_id, destination, source_ip, actor, reason, prev_hash, hash)
  select * from unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])`);

// The same batch after a head this node already knows, in one statement committed on its own. It
// takes the chain's advisory lock first (an InitPlan, evaluated before the first row is inserted), so
// a locked write (below) never meets it halfway; a head that moved meanwhile (another node appended)
// makes the first seq collide with the primary key, and the whole statement fails and is redone.
const APPEND_AFTER_KNOWN_HEAD = named(`${INSERT_ENTRIES_POSTGRES} where (select pg_advisory_xact_lock($13::bigint) is not null)`);

const UNIQUE_VIOLATION = '23505';

/** Most entries written by one transaction. */
const BATCH_MAX = 500;

/** Chains whose head a node remembers (one per account); past that it starts again. */
const MAX_KNOWN_HEADS = 10_000;

/** A batch sealed as the entries after `seq` (whose hash is `prevHash`). */
function sealBatch(batch: PendingAppend[], seq: number, prevHash: string): AuditEntry[] {
  const entries: AuditEntry[] = [];
  for (const { input, seal } of batch) {
    seq += 1;
    const entry = chainEntry(input, seq, prevHash, seal);
    entries.push(entry);
    prevHash = entry.hash;
  }
  return entries;
}

/** Every entry's fields as arrays, the first twelve parameters of the PostgreSQL inserts. */
function entryColumns(entries: AuditEntry[]): unknown[] {
  const column = <K extends keyof AuditEntry>(key: K) => entries.map((e) => e[key]);
  return [
    column('accountId'), column('seq'), column('at'), column('event'), column('applicationId'), column('pinId'), column('destination'),
    column('sourceIp'), column('actor'), column('reason'), column('prevHash'), column('hash'),
  ];
}

export class KyselyAuditStore implements AuditStore {
  /** Each account's chain with appends under way: those arriving meanwhile wait for its next write. */
  private readonly chains = new Map<string, WriteBatcher<PendingAppend, AuditEntry>>();
  /** PostgreSQL: each chain's newest entry as this node last wrote it (a guess that the primary key checks). */
  private readonly knownHeads = new Map<string, { seq: number; hash: string }>();

  /** The account's last entry, which the next one follows. */
  private readonly chainHead = new PreparedQuery((db: Kysely<Database>, p: ParamOf<{ accountId: string }>) =>
    db.selectFrom('audit_log').select(['seq', 'hash']).where('account_id', '=', p('accountId')).orderBy('seq', 'desc').limit(1));

  private readonly insertEntry = new PreparedQuery((db: Kysely<Database>, p: ParamOf<AuditEntry>) => db.insertInto('audit_log').values({
    account_id: p('accountId'), seq: p('seq'), at: p('at'), event: p('event'), application_id: p('applicationId'),
    pin_id: p('pinId'), destination: p('destination'), source_ip: p('sourceIp'), actor: p('actor'), reason: p('reason'),
    prev_hash: p('prevHash'), hash: p('hash'),
  }));

  readonly heads: AuditHeadStore;

  /**
   * `deferred` runs a write without waiting for the disk (SQLite group commit): an entry is committed
   * when append() resolves, durable once the caller's Store.durable() resolves.
   */
  constructor(private readonly db: Kysely<Database>, private readonly dialect: 'sqlite' | 'postgres',
    private readonly deferred: <T>(work: (db: Kysely<Database>) => Promise<T>) => Promise<T> = (work) => work(db),
    /** PostgreSQL: wraps each write, a synchronous commit (postgres/deferred-flushes.ts counts on it). */
    private readonly synchronous: <T>(commit: () => Promise<T>) => Promise<T> = (commit) => commit()) {
    this.heads = new KyselyAuditHeadStore(db);
  }

  /**
   * Resolves once the entry is committed (durable once Store.durable() resolves). Appends that arrive while an account's previous write is
   * under way are written together by the next one (one lock, one read of the head, in one
   * transaction: write-batcher.ts), so a burst of concurrent requests costs a few transactions, not one each.
   */
  append(input: AuditEntryInput, seal: AuditSeal): Promise<AuditEntry> {
    const accountId = input.accountId;
    let chain = this.chains.get(accountId);
    if (!chain) {
      chain = new WriteBatcher((batch) => this.write(accountId, batch), { maxBatch: BATCH_MAX, onIdle: () => this.chains.delete(accountId) });
      this.chains.set(accountId, chain);
    }
    return chain.submit({ input, seal });
  }

  private async write(accountId: string, batch: PendingAppend[]): Promise<AuditEntry[]> {
    if (this.dialect === 'postgres') {
      // This node's appends to a chain are serialised by its batcher, so the head it wrote last is
      // the head unless another node appended since: one round trip instead of five (BEGIN, lock,
      // head, insert, COMMIT) while that holds.
      const known = this.knownHeads.get(accountId);
      if (known) {
        const entries = sealBatch(batch, known.seq, known.hash);
        try {
          await this.synchronous(() => this.db.executeQuery(CompiledQuery.raw(APPEND_AFTER_KNOWN_HEAD, [...entryColumns(entries), advisoryLockKey(`audit:${accountId}`)])));
          this.rememberHead(accountId, entries);
          return entries;
        } catch (err) {
          this.knownHeads.delete(accountId);
          if ((err as { code?: unknown }).code !== UNIQUE_VIOLATION) throw err;
        }
      }
    }
    const entries = await this.synchronous(() => this.deferred((db) => db.transaction().execute(async (trx) => {
      if (this.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${advisoryLockKey(`audit:${accountId}`)}::bigint)`.execute(trx);
      const last = await this.chainHead.first(trx, { accountId });
      const entries = sealBatch(batch, last ? Number(last.seq) : 0, last?.hash ?? '');
      if (this.dialect === 'postgres') {
        // One round trip for the batch: every entry's fields as arrays (the statement's text never changes).
        await trx.executeQuery(CompiledQuery.raw(INSERT_ENTRIES_POSTGRES, entryColumns(entries)));
      } else {
        // SQLite: one prepared INSERT per entry (each is a synchronous call, no round trip).
        for (const entry of entries) await this.insertEntry.execute(trx, entry);
      }
      return entries;
    })));
    if (this.dialect === 'postgres') this.rememberHead(accountId, entries);
    return entries;
  }

  private rememberHead(accountId: string, entries: AuditEntry[]): void {
    const last = entries.at(-1);
    if (!last) return;
    if (this.knownHeads.size >= MAX_KNOWN_HEADS && !this.knownHeads.has(accountId)) this.knownHeads.clear();
    this.knownHeads.set(accountId, { seq: last.seq, hash: last.hash });
  }

  async list(accountId: string, filter: AuditFilter, limit: number): Promise<AuditEntry[]> {
    let query = this.db.selectFrom('audit_log').selectAll().where('account_id', '=', accountId);
    if (filter.applicationId !== undefined) query = query.where('application_id', '=', filter.applicationId);
    if (filter.pinId !== undefined) query = query.where('pin_id', '=', filter.pinId);
    if (filter.event !== undefined) query = query.where('event', '=', filter.event);
    if (filter.afterSeq !== undefined) query = query.where('seq', '>', filter.afterSeq);
    const rows = await query.orderBy('seq').limit(limit).execute();
    return rows.map(toEntry);
  }

  async accounts(): Promise<string[]> {
    const rows = await this.db.selectFrom('audit_log').select('account_id').distinct().orderBy('account_id').execute();
    return rows.map((r) => r.account_id);
  }
}
