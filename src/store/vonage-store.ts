// The Vonage Verify dialect's applications: a Vonage application is a twofa application (same id)
// with the RSA public key its JWTs are checked with, and the callback URL and signature secret of its
// Verify callbacks. Its verifications are the engine's PINs (their request ids derived from the PIN
// ids, domain/vonage-ids.ts); a request keeps beside its PIN only what the PIN has no place for
// (client_ref, channel_timeout, its channels) and whether its callbacks were queued (dialect-callbacks.ts).
import type { Kysely, Selectable } from 'kysely';
import type { Database, VonageApplicationsTable } from './schema.js';

export interface VonageApplicationRow {
  accountId: string;
  applicationId: string;
  /** PEM (SPKI) of the RSA key whose private half signs the application's JWTs. */
  publicKey: string;
  /** Where the Verify callbacks go; null: none are sent. */
  callbackUrl: string | null;
  /** The callbacks' signature secret, encrypted under TWOFA_SECRET; null until the first callback URL. */
  signatureSecretCiphertext: string | null;
  updatedAt: number;
}

export interface VonageRequestRow {
  pinId: string;
  accountId: string;
  applicationId: string;
  clientRef: string | null;
  channelTimeout: number;
  /** Vonage's channel names, in the workflow's order. */
  channels: string[];
  createdAt: number;
  expiresAt: number;
}

export interface VonageStore {
  /** The row of an application id, whatever its account (a JWT names the application, not the account). */
  getApplication(applicationId: string): Promise<VonageApplicationRow | undefined>;
  listApplications(accountId: string): Promise<VonageApplicationRow[]>;
  saveApplication(row: VonageApplicationRow): Promise<void>;
  /** False when the account has no such row. */
  deleteApplication(accountId: string, applicationId: string): Promise<boolean>;
  /** Every application's encrypted signature secret (re-encryption under the current key after TWOFA_SECRET is rotated). */
  listSignatureSecrets(): Promise<Array<{ applicationId: string; ciphertext: string }>>;
  /** Replaces an encrypted signature secret if it is still `previous` (another node may have done it already). */
  replaceSignatureSecret(applicationId: string, previous: string, next: string): Promise<void>;
  /** Records a request's own fields, written after its PIN (a request whose row is missing sends no callbacks). */
  insertRequest(row: VonageRequestRow): Promise<void>;
}

function applicationOf(row: Selectable<VonageApplicationsTable>): VonageApplicationRow {
  return {
    accountId: row.account_id, applicationId: row.application_id, publicKey: row.public_key, callbackUrl: row.callback_url ?? null,
    signatureSecretCiphertext: row.signature_secret_ciphertext ?? null, updatedAt: Number(row.updated_at),
  };
}

export class KyselyVonageStore implements VonageStore {
  constructor(private readonly db: Kysely<Database>) {}

  async getApplication(applicationId: string): Promise<VonageApplicationRow | undefined> {
    const row = await this.db.selectFrom('vonage_applications').selectAll().where('application_id', '=', applicationId).executeTakeFirst();
    return row && applicationOf(row);
  }

  async listApplications(accountId: string): Promise<VonageApplicationRow[]> {
    const rows = await this.db.selectFrom('vonage_applications').selectAll().where('account_id', '=', accountId).orderBy('application_id').execute();
    return rows.map(applicationOf);
  }

  async saveApplication(row: VonageApplicationRow): Promise<void> {
    const values = {
      account_id: row.accountId, public_key: row.publicKey, callback_url: row.callbackUrl, signature_secret_ciphertext: row.signatureSecretCiphertext, updated_at: row.updatedAt,
    };
    await this.db.insertInto('vonage_applications').values({ application_id: row.applicationId, ...values })
      .onConflict((oc) => oc.column('application_id').doUpdateSet(values)).execute();
  }

  async deleteApplication(accountId: string, applicationId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('vonage_applications').where('application_id', '=', applicationId).where('account_id', '=', accountId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async listSignatureSecrets(): Promise<Array<{ applicationId: string; ciphertext: string }>> {
    const rows = await this.db.selectFrom('vonage_applications').select(['application_id', 'signature_secret_ciphertext'])
      .where('signature_secret_ciphertext', 'is not', null).execute();
    return rows.map((r) => ({ applicationId: r.application_id, ciphertext: r.signature_secret_ciphertext! }));
  }

  async replaceSignatureSecret(applicationId: string, previous: string, next: string): Promise<void> {
    await this.db.updateTable('vonage_applications').set({ signature_secret_ciphertext: next })
      .where('application_id', '=', applicationId).where('signature_secret_ciphertext', '=', previous).execute();
  }

  async insertRequest(row: VonageRequestRow): Promise<void> {
    await this.db.insertInto('vonage_requests').values({
      pin_id: row.pinId, account_id: row.accountId, application_id: row.applicationId, client_ref: row.clientRef, channel_timeout: row.channelTimeout,
      channels: row.channels.join(' '), created_at: row.createdAt, expires_at: row.expiresAt, reported: null,
    }).execute();
  }
}
