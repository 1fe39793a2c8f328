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
  /** The newest entry of one account's chain, if it has any. */
  tip(accountId: string): Promise<ChainTip | undefined>;
  /** The entry `seq` of an account's chain, if it is there. */
  entryHash(accountId: string, seq: number): Promise<string | undefined>;
  /** Every recorded head (signatures not checked). */
  list(): Promise<AuditHead[]>;
  /** Stores the head unless one at the same or a later seq is recorded; true when stored. */
  record(head: AuditHead): Promise<boolean>;
}

export class KyselyAuditHeadStore implements AuditHeadStore {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * One primary-key seek per account (the last entry of its chain) rather than a query over every
   * entry: the cost follows the number of accounts, not the size of the log.
   */
  async tips(): Promise<ChainTip[]> {
    const accounts = await this.db.selectFrom('accounts').select('id').orderBy('id').execute();
    const tips: ChainTip[] = [];
    for (const { id } of accounts) {
      const tip = await this.tip(id);
      if (tip) tips.push(tip);
    }
    return tips;
  }

  async tip(accountId: string): Promise<ChainTip | undefined> {
    const last = await this.db.selectFrom('audit_log').select(['seq', 'hash']).where('account_id', '=', accountId).orderBy('seq', 'desc').limit(1).executeTakeFirst();
    return last && { accountId, seq: Number(last.seq), hash: last.hash };
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
