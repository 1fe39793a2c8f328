// The Prelude Verify dialect's rows: the account's settings (which application its calls use) and,
// beside each verification's PIN, what the PIN has no place for: its metadata (correlation_id,
// answered by the check) and the callback URL of its webhooks, with what of them was queued
// (dialect-callbacks.ts). Verification ids are derived from the PIN ids (domain/prelude-ids.ts).
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface PreludeSettingsRow {
  accountId: string;
  applicationId: string;
  customCodeAllowed: boolean;
  updatedAt: number;
}

export interface PreludeVerificationRow {
  pinId: string;
  accountId: string;
  correlationId: string | null;
  callbackUrl: string | null;
  createdAt: number;
  expiresAt: number;
}

export interface PreludeStore {
  getSettings(accountId: string): Promise<PreludeSettingsRow | undefined>;
  saveSettings(row: PreludeSettingsRow): Promise<void>;
  /**
   * Records what a create adds to its PIN. A retry of a verification that has a row keeps the first
   * one's (the metadata and the webhooks belong to the verification, made by its first create).
   */
  saveVerification(row: PreludeVerificationRow): Promise<void>;
  getVerification(accountId: string, pinId: string): Promise<PreludeVerificationRow | undefined>;
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

  async saveVerification(row: PreludeVerificationRow): Promise<void> {
    await this.db.insertInto('prelude_verifications').values({
      pin_id: row.pinId, account_id: row.accountId, correlation_id: row.correlationId, callback_url: row.callbackUrl, created_at: row.createdAt,
      expires_at: row.expiresAt, authentication_reported: 0, reported_sends: 0, reported_delivery: null, open: row.callbackUrl === null ? 0 : 1,
    }).onConflict((oc) => oc.column('pin_id').doNothing()).execute();
  }

  async getVerification(accountId: string, pinId: string): Promise<PreludeVerificationRow | undefined> {
    const row = await this.db.selectFrom('prelude_verifications').selectAll().where('pin_id', '=', pinId).where('account_id', '=', accountId).executeTakeFirst();
    return row && {
      pinId: row.pin_id, accountId: row.account_id, correlationId: row.correlation_id, callbackUrl: row.callback_url,
      createdAt: Number(row.created_at), expiresAt: Number(row.expires_at),
    };
  }
}
