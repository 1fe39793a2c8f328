// An audit entry appended on SQLite by a synchronous transaction of the hot path (pin-statements.ts),
// in the transaction of the decision it records: one commit for both, and never a decision without
// its entry. The chain is the one audit-store.ts keeps (same rows, same seal): the head is read inside
// the write transaction, which nothing else in this process can interleave with (hot-path.ts) and
// which holds SQLite's write lock against other processes (BEGIN IMMEDIATE).
import type BetterSqlite3 from 'better-sqlite3';
import { chainEntry, type AuditAppend, type AuditEntry } from '../audit-store.js';

export class SqliteAuditStatements {
  private readonly head: BetterSqlite3.Statement<[string], { seq: number; hash: string }>;
  private readonly insert: BetterSqlite3.Statement<AuditEntry>;

  constructor(connection: BetterSqlite3.Database) {
    this.head = connection.prepare('select seq, hash from audit_log where account_id = ? order by seq desc limit 1');
    this.insert = connection.prepare(`insert into audit_log (account_id, seq, at, event, application_id, pin_id, destination, source_ip, actor, reason, prev_hash, hash)
      values (:accountId, :seq, :at, :event, :applicationId, :pinId, :destination, :sourceIp, :actor, :reason, :prevHash, :hash)`);
  }

  /** Appends to the account's chain; must run inside a write transaction (hot-path.ts). */
  append({ entry, seal }: AuditAppend): AuditEntry {
    const last = this.head.get(entry.accountId);
    const sealed = chainEntry(entry, (last?.seq ?? 0) + 1, last?.hash ?? '', seal);
    this.insert.run(sealed);
    return sealed;
  }
}
