// The signed heads of the audit chains (domain/audit-head.ts), one row per account in `audit_heads`,
// apart from `audit_log`: deleting a chain's newest entries leaves the head that names them. A head
// only ever moves forward: an older or equal one never replaces a newer one, so several nodes
// recording at once keep the newest.
import { sql, type Kysely } from 'kysely';
import type { AuditHead } from '../domain/audit-head.js';
import type { Database } from './schema.js';

/** The newest entry of a chain, as it stands in audit_log. */
export interface ChainTip {
  accountId: string;
  seq: number;
  hash: string;
}

export interface AuditHeadStore {
  /** The newest entry of every account's chain. */
  tips(): Promise<ChainTip[]>;
  /** The entry `seq` of an account's chain, if it is there. */
  entryHash(accountId: string, seq: number): Promise<string | undefined>;
  /** Every recorded head (signatures not checked). */
  list(): Promise<AuditHead[]>;
  /** Stores the head unless one at the same or a later seq is recorded; true when stored. */
  record(head: AuditHead): Promise<boolean>;
}

export class KyselyAuditHeadStore implements AuditHeadStore {
  constructor(private readonly db: Kysely<Database>) {}

  async tips(): Promise<ChainTip[]> {
    const rows = await this.db.selectFrom('audit_log as a').select(['a.account_id', 'a.seq', 'a.hash'])
      .where('a.seq', '=', (eb) => eb.selectFrom('audit_log as b').select((b) => b.fn.max('b.seq').as('seq')).whereRef('b.account_id', '=', 'a.account_id'))
      .orderBy('a.account_id').execute();
    return rows.map((r) => ({ accountId: r.account_id, seq: Number(r.seq), hash: r.hash }));
  }

  async entryHash(accountId: string, seq: number): Promise<string | undefined> {
    const row = await this.db.selectFrom('audit_log').select('hash').where('account_id', '=', accountId).where('seq', '=', seq).executeTakeFirst();
    return row?.hash;
  }

  async list(): Promise<AuditHead[]> {
    const rows = await this.db.selectFrom('audit_heads').selectAll().orderBy('account_id').execute();
    return rows.map((r) => ({ accountId: r.account_id, seq: Number(r.seq), hash: r.hash, signedAt: Number(r.signed_at), signature: r.signature }));
  }

  async record(head: AuditHead): Promise<boolean> {
    const values = { seq: head.seq, hash: head.hash, signed_at: head.signedAt, signature: head.signature };
    const result = await this.db.insertInto('audit_heads').values({ account_id: head.accountId, ...values })
      .onConflict((oc) => oc.column('account_id').doUpdateSet(values).where(sql<boolean>`audit_heads.seq < excluded.seq`))
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}
