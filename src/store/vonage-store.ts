// The Vonage Verify dialect's applications: a Vonage application is a twofa application (same id)
// with the RSA public key its JWTs are checked with. Its verifications are the engine's PINs (their
// request ids derived from the PIN ids, domain/vonage-ids.ts): nothing of a verification is stored here.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface VonageApplicationRow {
  accountId: string;
  applicationId: string;
  /** PEM (SPKI) of the RSA key whose private half signs the application's JWTs. */
  publicKey: string;
  updatedAt: number;
}

export interface VonageStore {
  /** The row of an application id, whatever its account (a JWT names the application, not the account). */
  getApplication(applicationId: string): Promise<VonageApplicationRow | undefined>;
  saveApplication(row: VonageApplicationRow): Promise<void>;
  /** False when the account has no such row. */
  deleteApplication(accountId: string, applicationId: string): Promise<boolean>;
}

export class KyselyVonageStore implements VonageStore {
  constructor(private readonly db: Kysely<Database>) {}

  async getApplication(applicationId: string): Promise<VonageApplicationRow | undefined> {
    const row = await this.db.selectFrom('vonage_applications').selectAll().where('application_id', '=', applicationId).executeTakeFirst();
    return row && { accountId: row.account_id, applicationId: row.application_id, publicKey: row.public_key, updatedAt: Number(row.updated_at) };
  }

  async saveApplication(row: VonageApplicationRow): Promise<void> {
    const values = { account_id: row.accountId, public_key: row.publicKey, updated_at: row.updatedAt };
    await this.db.insertInto('vonage_applications').values({ application_id: row.applicationId, ...values })
      .onConflict((oc) => oc.column('application_id').doUpdateSet(values)).execute();
  }

  async deleteApplication(accountId: string, applicationId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('vonage_applications').where('application_id', '=', applicationId).where('account_id', '=', accountId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
