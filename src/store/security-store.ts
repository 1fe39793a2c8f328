// Anti-fraud state over the same Kysely database as the rest of the store: each application's
// security settings, the temporary blocks the conversion breaker trips, and the per-country send and
// verification counters it judges by. Read on the send path only for applications that turned the
// guards on (one primary-key read otherwise).
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { PreparedQuery, type ParamOf } from './prepared-query.js';
import { UNCACHED, type ConfigReader } from './config-cache.js';

export interface SecuritySettingsRow {
  settings: string;
  updatedAt: number;
}

export interface ActiveBlock {
  scope: string;
  blockedUntil: number;
  reason: string;
}

export interface SecurityStore {
  /** The stored settings JSON of an application, undefined when it has none (all guards off). */
  getSettings(applicationId: string): Promise<SecuritySettingsRow | undefined>;
  putSettings(accountId: string, applicationId: string, settings: string, now: number): Promise<void>;
  /** A block on `scope` that has not expired yet. */
  activeBlock(applicationId: string, scope: string, now: number): Promise<ActiveBlock | undefined>;
  /** Blocks `scope` until `until` (replacing an earlier block of that scope). */
  addBlock(applicationId: string, scope: string, until: number, reason: string, now: number): Promise<void>;
  /** The blocks of an application that have not expired. */
  listBlocks(applicationId: string, now: number): Promise<ActiveBlock[]>;
  /** Counts one send or one verification to `country` in the bucket that `now` falls in. */
  countConversion(applicationId: string, country: string, kind: 'send' | 'verify', bucketStart: number): Promise<void>;
  /** Sends and verifications to `country` in buckets starting after `since`. */
  conversionSince(applicationId: string, country: string, since: number): Promise<{ sends: number; verifies: number }>;
  /** Deletes expired blocks and counters older than `before`. */
  purge(now: number, before: number): Promise<void>;
}

export class KyselySecurityStore implements SecurityStore {
  /** Read on every send and verification. */
  private readonly settingsOf = new PreparedQuery((db: Kysely<Database>, p: ParamOf<{ applicationId: string }>) =>
    db.selectFrom('security_settings').select(['settings', 'updated_at']).where('application_id', '=', p('applicationId')));

  constructor(private readonly db: Kysely<Database>, private readonly config: ConfigReader = UNCACHED) {}

  async getSettings(applicationId: string): Promise<SecuritySettingsRow | undefined> {
    return this.config.get(`security:${applicationId}`, async () => {
      const row = await this.settingsOf.first(this.db, { applicationId });
      return row && { settings: row.settings, updatedAt: Number(row.updated_at) };
    });
  }

  async putSettings(accountId: string, applicationId: string, settings: string, now: number): Promise<void> {
    await this.db.insertInto('security_settings').values({ application_id: applicationId, account_id: accountId, settings, updated_at: now })
      .onConflict((oc) => oc.column('application_id').doUpdateSet({ settings, updated_at: now }))
      .execute();
  }

  async activeBlock(applicationId: string, scope: string, now: number): Promise<ActiveBlock | undefined> {
    const row = await this.db.selectFrom('security_blocks').select(['scope', 'blocked_until', 'reason'])
      .where('application_id', '=', applicationId).where('scope', '=', scope).where('blocked_until', '>', now).executeTakeFirst();
    return row && { scope: row.scope, blockedUntil: Number(row.blocked_until), reason: row.reason };
  }

  async addBlock(applicationId: string, scope: string, until: number, reason: string, now: number): Promise<void> {
    await this.db.insertInto('security_blocks').values({ application_id: applicationId, scope, blocked_until: until, reason, created_at: now })
      .onConflict((oc) => oc.columns(['application_id', 'scope']).doUpdateSet((eb) => ({
        // A breaker trips only while no block is live, so a new block replaces an expired one.
        blocked_until: eb.ref('excluded.blocked_until'),
        reason: eb.ref('excluded.reason'),
        created_at: eb.ref('excluded.created_at'),
      })))
      .execute();
  }

  async listBlocks(applicationId: string, now: number): Promise<ActiveBlock[]> {
    const rows = await this.db.selectFrom('security_blocks').select(['scope', 'blocked_until', 'reason'])
      .where('application_id', '=', applicationId).where('blocked_until', '>', now).orderBy('scope').execute();
    return rows.map((r) => ({ scope: r.scope, blockedUntil: Number(r.blocked_until), reason: r.reason }));
  }

  async countConversion(applicationId: string, country: string, kind: 'send' | 'verify', bucketStart: number): Promise<void> {
    await this.db.insertInto('conversion_counts')
      .values({ application_id: applicationId, country, bucket_start: bucketStart, sends: kind === 'send' ? 1 : 0, verifies: kind === 'verify' ? 1 : 0 })
      .onConflict((oc) => oc.columns(['application_id', 'country', 'bucket_start']).doUpdateSet((eb) => (kind === 'send'
        ? { sends: eb('conversion_counts.sends', '+', 1) }
        : { verifies: eb('conversion_counts.verifies', '+', 1) })))
      .execute();
  }

  async conversionSince(applicationId: string, country: string, since: number): Promise<{ sends: number; verifies: number }> {
    const row = await this.db.selectFrom('conversion_counts')
      .select((eb) => [eb.fn.sum<number>('sends').as('sends'), eb.fn.sum<number>('verifies').as('verifies')])
      .where('application_id', '=', applicationId).where('country', '=', country).where('bucket_start', '>', since)
      .executeTakeFirst();
    return { sends: Number(row?.sends ?? 0), verifies: Number(row?.verifies ?? 0) };
  }

  async purge(now: number, before: number): Promise<void> {
    await this.db.deleteFrom('security_blocks').where('blocked_until', '<=', now).execute();
    await this.db.deleteFrom('conversion_counts').where('bucket_start', '<=', before).execute();
  }
}
