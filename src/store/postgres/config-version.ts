// The configuration cache's version on PostgreSQL (../config-cache.ts), where several nodes change
// configuration and no cheap signal like SQLite's PRAGMA data_version exists:
//
// - `config_version` (migration 0024) is a one-row counter that a statement-level trigger on every
//   table the cache holds bumps in the transaction of the change, and announces on CONFIG_CHANNEL.
// - Every API key lookup reads the key and that counter in one statement, never from the cache: an
//   authenticated request observes the counter as of its start, so the configuration it then reads
//   from the cache (application, templates, security settings, test numbers) is never older than
//   that. A key revoked or an application changed on any node is seen by the next request on every
//   node, whether or not the notification arrived; correctness never waits for NOTIFY.
// - The notification (and this node's own writes, noted by ConfigWriteWatch as their statements
//   return) makes the rest see a change without waiting for a request: the delivery worker's
//   template reads and the receipts' application reads. While the LISTEN connection is down, nothing
//   is cached (every read goes to the database), so a lost notification cannot leave a stale entry
//   behind for longer than the connection takes to be noticed lost.
import type { KyselyPlugin, OperationNode, PluginTransformQueryArgs, PluginTransformResultArgs, QueryId, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

export const CONFIG_CHANNEL = 'twofa_config';

/**
 * Tables whose rows the configuration cache holds (directly or joined); as sqlite/change-watch.ts.
 * Each has the trigger that bumps config_version (migration 0024): a table added here needs its
 * trigger created by a new migration.
 */
export const CONFIG_TABLES = ['api_keys', 'accounts', 'applications', 'message_templates', 'email_templates', 'security_settings', 'webhook_subscriptions', 'test_numbers', 'risk_settings', 'application_senders'];

/** The version the cache compares: the newest counter observed, this node's own changes, and whether notifications arrive. */
export class PostgresConfigVersion {
  private observed = 0;
  private local = 0;
  private listening = false;
  private unlistened = 0;

  /** ConfigVersion (../config-cache.ts). */
  readonly current = (): string => (this.listening ? `${this.observed}:${this.local}` : `unlistened:${++this.unlistened}`);

  /** A counter read with an API key: only ever moves forward (replies of concurrent reads may arrive out of order). */
  observe(version: number): void {
    if (version > this.observed) this.observed = version;
  }

  /** A notification arrived, or this node wrote configuration. */
  changed(): void {
    this.local += 1;
  }

  /** The LISTEN connection is up (every change from now on is announced) or lost. */
  setListening(on: boolean): void {
    this.listening = on;
    this.local += 1;
  }
}

/** Calls `onWrite` after every statement built with Kysely that wrote to a configuration table. */
export class ConfigWriteWatch implements KyselyPlugin {
  private readonly writes = new WeakSet<QueryId>();
  private readonly tables = new Set(CONFIG_TABLES);

  constructor(private readonly onWrite: () => void) {}

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    const table = writtenTable(node);
    if (table !== undefined && this.tables.has(table)) this.writes.add(queryId);
    return node;
  }

  transformResult({ queryId, result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.writes.has(queryId)) {
      this.writes.delete(queryId);
      this.onWrite();
    }
    return Promise.resolve(result);
  }
}

function writtenTable(node: RootOperationNode): string | undefined {
  switch (node.kind) {
    case 'InsertQueryNode':
      return tableName(node.into);
    case 'UpdateQueryNode':
      return tableName(node.table);
    case 'DeleteQueryNode':
      return tableName(node.from.froms[0]);
    default:
      return undefined;
  }
}

function tableName(node: OperationNode | undefined): string | undefined {
  if (node === undefined) return undefined;
  if (node.kind === 'AliasNode') return tableName((node as unknown as { node: OperationNode }).node);
  if (node.kind === 'TableNode') return (node as unknown as { table: { identifier: { name: string } } }).table.identifier.name;
  return undefined;
}
