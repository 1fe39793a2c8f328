// The Prelude Verify dialect's one row per account: which application its calls use. Its
// verifications are the engine's PINs (their ids derived from the PIN ids, domain/prelude-ids.ts):
// nothing of a verification is stored here.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface PreludeSettingsRow {
  accountId: string;
  applicationId: string;
  customCodeAllowed: boolean;
  updatedAt: number;
}

export interface PreludeStore {
  getSettings(accountId: string): Promise<PreludeSettingsRow | undefined>;
  saveSettings(row: PreludeSettingsRow): Promise<void>;
}

export class KyselyPreludeStore implements PreludeStore {
  constructor(private readonly db: Kysely<Database>) {}

  async getSettings(accountId: string): Promise<PreludeSettingsRow | undefined> {
    const row = await this.db.selectFrom('prelude_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    return row && { accountId: row.account_id, applicationId: row.application_id, customCodeAllowed: row.custom_code_allowed === 1, updatedAt: Number(row.updated_at) };
  }

  async saveSettings(row: PreludeSettingsRow): Promise<void> {
    const values = { application_id: row.applicationId, custom_code_allowed: row.customCodeAllowed ? 1 : 0, updated_at: row.updatedAt };
    await this.db.insertInto('prelude_settings').values({ account_id: row.accountId, ...values })
      .onConflict((oc) => oc.column('account_id').doUpdateSet(values)).execute();
  }
}
