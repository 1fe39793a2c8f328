// Tells the configuration cache (../config-cache.ts) when the SQLite database's configuration may have
// changed: PRAGMA data_version changes when any other connection (another process on the same file)
// commits; this connection's own writes to configuration tables are counted as its statements run.
import type BetterSqlite3 from 'better-sqlite3';

/** Tables whose rows the configuration cache holds (directly or joined). */
const CONFIG_TABLES = /\b(?:api_keys|accounts|applications|message_templates|email_templates|security_settings|risk_settings|application_senders|webhook_subscriptions|test_numbers)\b/i;

export class SqliteChangeWatch {
  private localWrites = 0;
  /** PRAGMA data_version as read in this turn of the event loop. */
  private seenDataVersion: number | undefined;
  private readonly dataVersion: BetterSqlite3.Statement;
  /** Whether a statement's SQL writes configuration, once per SQL text. */
  private readonly writesConfig = new Map<string, boolean>();

  constructor(connection: BetterSqlite3.Database) {
    this.dataVersion = connection.prepare('PRAGMA data_version').pluck();
  }

  /** Called for every statement about to run on the connection. */
  noteStatement(sql: string, readonly: boolean): void {
    if (readonly) return;
    let writes = this.writesConfig.get(sql);
    if (writes === undefined) {
      writes = CONFIG_TABLES.test(sql);
      if (this.writesConfig.size >= 1000) this.writesConfig.clear();
      this.writesConfig.set(sql, writes);
    }
    if (writes) this.localWrites += 1;
  }

  /**
   * Changes whenever configuration may have changed since it was last read. Other processes'
   * commits are looked for once per turn of the event loop (the pragma is a statement of its own,
   * and a turn runs many requests' lookups): a request that arrives after another process committed
   * arrives in a later turn, so it sees the change. This connection's own writes count at once.
   */
  version(): string {
    if (this.seenDataVersion === undefined) {
      this.seenDataVersion = this.dataVersion.get() as number;
      setImmediate(() => {
        this.seenDataVersion = undefined;
      });
    }
    return `${this.seenDataVersion}:${this.localWrites}`;
  }
}
