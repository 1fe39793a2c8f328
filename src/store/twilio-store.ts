// The Twilio Verify dialect's own rows beside the engine's: the Twilio-only settings of a Service
// (an application) and the Twilio side of a Verification (a PIN). Every query is bounded by the
// account that asks. The PIN itself (its secret, attempts, expiry) stays in `pins`.
import type { Kysely, Selectable } from 'kysely';
import { batchOf, inBatches, type PurgeLimits } from './purge-batches.js';
import type { Database, TwilioRateLimitBucketsTable, TwilioRateLimitsTable, TwilioServicesTable, TwilioVerificationsTable } from './schema.js';

export interface TwilioServiceRow {
  applicationId: string;
  accountId: string;
  settings: Record<string, unknown>;
  smsMessageId: string | null;
  emailMessageId: string | null;
  deletedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export type TwilioVerificationStatus = 'pending' | 'approved' | 'canceled' | 'max_attempts_reached';

export interface SendCodeAttempt {
  time: number;
  channel: string;
  attemptSid: string;
}

export interface TwilioVerificationRow {
  pinId: string;
  accountId: string;
  status: TwilioVerificationStatus;
  channel: string;
  sendCodeAttempts: SendCodeAttempt[];
  createdAt: number;
  updatedAt: number;
  /** The PIN's expiry. */
  expiresAt: number;
}

export interface TwilioRateLimitRow {
  sid: string;
  accountId: string;
  applicationId: string;
  uniqueName: string;
  description: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface TwilioBucketRow {
  sid: string;
  rateLimitSid: string;
  accountId: string;
  applicationId: string;
  max: number;
  /** Seconds. */
  interval: number;
  createdAt: number;
  updatedAt: number;
}

export interface TwilioStore {
  getService(accountId: string, applicationId: string): Promise<TwilioServiceRow | undefined>;
  listServices(accountId: string): Promise<TwilioServiceRow[]>;
  /** Inserts or replaces the Twilio side of an application. */
  saveService(row: TwilioServiceRow): Promise<void>;
  getVerification(accountId: string, pinId: string): Promise<TwilioVerificationRow | undefined>;
  insertVerification(row: TwilioVerificationRow): Promise<void>;
  /** Appends a send to a verification's history (a repeated start that re-sent the same code). */
  recordSend(accountId: string, pinId: string, attempt: SendCodeAttempt, now: number): Promise<void>;
  /** Moves a pending verification to `status`; false when it was no longer pending. */
  endVerification(accountId: string, pinId: string, status: Exclude<TwilioVerificationStatus, 'pending'>, now: number): Promise<boolean>;
  /**
   * Approves or cancels a live PIN and its verification in one transaction: the PIN is marked verified
   * (approve) or locked (cancel) and its ciphertext erased, only if it is still live (conditional
   * UPDATE: a concurrent check or update cannot also end it). False when it had already ended.
   */
  settlePin(accountId: string, pinId: string, outcome: 'approved' | 'canceled', now: number): Promise<boolean>;
  /** The id of the newest PIN of the application to the destination, if any. */
  latestPinId(accountId: string, applicationId: string, destination: string): Promise<string | undefined>;
  /** Deletes, in batches, the verification rows of PINs expired at or before `cutoff` (the PINs' own purge). */
  purge(cutoff: number, limits: PurgeLimits): Promise<number>;

  // Rate Limits and their Buckets, oldest first, inside the application (the Service) of the account.
  /** False when the application has a Rate Limit of that unique name already. */
  insertRateLimit(row: TwilioRateLimitRow): Promise<boolean>;
  getRateLimit(accountId: string, applicationId: string, sid: string): Promise<TwilioRateLimitRow | undefined>;
  listRateLimits(accountId: string, applicationId: string): Promise<TwilioRateLimitRow[]>;
  updateRateLimit(row: TwilioRateLimitRow): Promise<void>;
  /** Deletes a Rate Limit with its Buckets; false when there was none. */
  deleteRateLimit(accountId: string, applicationId: string, sid: string): Promise<boolean>;
  insertBucket(row: TwilioBucketRow): Promise<void>;
  getBucket(accountId: string, rateLimitSid: string, sid: string): Promise<TwilioBucketRow | undefined>;
  listBuckets(accountId: string, rateLimitSids: readonly string[]): Promise<TwilioBucketRow[]>;
  updateBucket(row: TwilioBucketRow): Promise<void>;
  deleteBucket(accountId: string, rateLimitSid: string, sid: string): Promise<boolean>;
}

function serviceFromRow(row: Selectable<TwilioServicesTable>): TwilioServiceRow {
  return {
    applicationId: row.application_id, accountId: row.account_id, settings: JSON.parse(row.settings) as Record<string, unknown>,
    smsMessageId: row.sms_message_id, emailMessageId: row.email_message_id, deletedAt: row.deleted_at === null ? null : Number(row.deleted_at),
    createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
}

function verificationFromRow(row: Selectable<TwilioVerificationsTable>): TwilioVerificationRow {
  return {
    pinId: row.pin_id, accountId: row.account_id, status: row.status as TwilioVerificationStatus, channel: row.channel,
    sendCodeAttempts: JSON.parse(row.send_code_attempts) as SendCodeAttempt[], createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
    expiresAt: Number(row.expires_at),
  };
}

function rateLimitFromRow(row: Selectable<TwilioRateLimitsTable>): TwilioRateLimitRow {
  return {
    sid: row.sid, accountId: row.account_id, applicationId: row.application_id, uniqueName: row.unique_name, description: row.description,
    createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
}

function bucketFromRow(row: Selectable<TwilioRateLimitBucketsTable>): TwilioBucketRow {
  return {
    sid: row.sid, rateLimitSid: row.rate_limit_sid, accountId: row.account_id, applicationId: row.application_id, max: Number(row.max),
    interval: Number(row.interval), createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
}

export class KyselyTwilioStore implements TwilioStore {
  constructor(private readonly db: Kysely<Database>, private readonly dialect: 'sqlite' | 'postgres') {}

  async getService(accountId: string, applicationId: string): Promise<TwilioServiceRow | undefined> {
    const row = await this.db.selectFrom('twilio_services').selectAll().where('application_id', '=', applicationId).where('account_id', '=', accountId).executeTakeFirst();
    return row ? serviceFromRow(row) : undefined;
  }

  async listServices(accountId: string): Promise<TwilioServiceRow[]> {
    const rows = await this.db.selectFrom('twilio_services').selectAll().where('account_id', '=', accountId).execute();
    return rows.map(serviceFromRow);
  }

  async saveService(row: TwilioServiceRow): Promise<void> {
    const values = {
      application_id: row.applicationId, account_id: row.accountId, settings: JSON.stringify(row.settings), sms_message_id: row.smsMessageId,
      email_message_id: row.emailMessageId, deleted_at: row.deletedAt, created_at: row.createdAt, updated_at: row.updatedAt,
    };
    await this.db.insertInto('twilio_services').values(values)
      .onConflict((oc) => oc.column('application_id').doUpdateSet({
        settings: values.settings, sms_message_id: values.sms_message_id, email_message_id: values.email_message_id,
        deleted_at: values.deleted_at, updated_at: values.updated_at,
      }))
      .execute();
  }

  async getVerification(accountId: string, pinId: string): Promise<TwilioVerificationRow | undefined> {
    const row = await this.db.selectFrom('twilio_verifications').selectAll().where('pin_id', '=', pinId).where('account_id', '=', accountId).executeTakeFirst();
    return row ? verificationFromRow(row) : undefined;
  }

  async insertVerification(row: TwilioVerificationRow): Promise<void> {
    await this.db.insertInto('twilio_verifications').values({
      pin_id: row.pinId, account_id: row.accountId, status: row.status, channel: row.channel,
      send_code_attempts: JSON.stringify(row.sendCodeAttempts), created_at: row.createdAt, updated_at: row.updatedAt, expires_at: row.expiresAt,
    }).execute();
  }

  async recordSend(accountId: string, pinId: string, attempt: SendCodeAttempt, now: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('twilio_verifications').select('send_code_attempts').where('pin_id', '=', pinId).where('account_id', '=', accountId).executeTakeFirst();
      if (!row) return;
      const attempts = [...(JSON.parse(row.send_code_attempts) as SendCodeAttempt[]), attempt];
      await trx.updateTable('twilio_verifications').set({ send_code_attempts: JSON.stringify(attempts), channel: attempt.channel, updated_at: now })
        .where('pin_id', '=', pinId).where('account_id', '=', accountId).execute();
    });
  }

  async endVerification(accountId: string, pinId: string, status: Exclude<TwilioVerificationStatus, 'pending'>, now: number): Promise<boolean> {
    const result = await this.db.updateTable('twilio_verifications').set({ status, updated_at: now })
      .where('pin_id', '=', pinId).where('account_id', '=', accountId).where('status', '=', 'pending').executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async settlePin(accountId: string, pinId: string, outcome: 'approved' | 'canceled', now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // Race gate: only a PIN still live is settled, so a concurrent check, approve or cancel cannot also end it.
      const settled = await trx.updateTable('pins')
        .set(outcome === 'approved' ? { verified_at: now, pin_ciphertext: null } : { locked_at: now, pin_ciphertext: null })
        .where('id', '=', pinId).where('account_id', '=', accountId)
        .where('verified_at', 'is', null).where('locked_at', 'is', null).where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(settled.numUpdatedRows) === 0) return false;
      await trx.updateTable('twilio_verifications').set({ status: outcome, updated_at: now })
        .where('pin_id', '=', pinId).where('account_id', '=', accountId).execute();
      return true;
    });
  }

  async latestPinId(accountId: string, applicationId: string, destination: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('pins').select('id')
      .where('application_id', '=', applicationId).where('destination', '=', destination).where('account_id', '=', accountId)
      .orderBy('created_at', 'desc').limit(1).executeTakeFirst();
    return row?.id;
  }

  async purge(cutoff: number, limits: PurgeLimits): Promise<number> {
    return inBatches(limits, async (batch) => (await this.db.deleteFrom('twilio_verifications')
      .where('pin_id', 'in', batchOf(this.db.selectFrom('twilio_verifications').select('pin_id').where('expires_at', '<=', cutoff).orderBy('expires_at').limit(batch), this.dialect))
      .executeTakeFirst()).numDeletedRows);
  }

  async insertRateLimit(row: TwilioRateLimitRow): Promise<boolean> {
    // The unique constraint decides between two creates of one name at once.
    const inserted = await this.db.insertInto('twilio_rate_limits').values({
      sid: row.sid, account_id: row.accountId, application_id: row.applicationId, unique_name: row.uniqueName, description: row.description,
      created_at: row.createdAt, updated_at: row.updatedAt,
    }).onConflict((oc) => oc.columns(['application_id', 'unique_name']).doNothing()).executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async getRateLimit(accountId: string, applicationId: string, sid: string): Promise<TwilioRateLimitRow | undefined> {
    const row = await this.db.selectFrom('twilio_rate_limits').selectAll()
      .where('sid', '=', sid).where('account_id', '=', accountId).where('application_id', '=', applicationId).executeTakeFirst();
    return row ? rateLimitFromRow(row) : undefined;
  }

  async listRateLimits(accountId: string, applicationId: string): Promise<TwilioRateLimitRow[]> {
    const rows = await this.db.selectFrom('twilio_rate_limits').selectAll()
      .where('application_id', '=', applicationId).where('account_id', '=', accountId).orderBy('created_at').orderBy('sid').execute();
    return rows.map(rateLimitFromRow);
  }

  async updateRateLimit(row: TwilioRateLimitRow): Promise<void> {
    await this.db.updateTable('twilio_rate_limits').set({ description: row.description, updated_at: row.updatedAt })
      .where('sid', '=', row.sid).where('account_id', '=', row.accountId).execute();
  }

  async deleteRateLimit(accountId: string, applicationId: string, sid: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx.deleteFrom('twilio_rate_limits').where('sid', '=', sid).where('account_id', '=', accountId).where('application_id', '=', applicationId).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return false;
      await trx.deleteFrom('twilio_rate_limit_buckets').where('rate_limit_sid', '=', sid).where('account_id', '=', accountId).execute();
      return true;
    });
  }

  async insertBucket(row: TwilioBucketRow): Promise<void> {
    await this.db.insertInto('twilio_rate_limit_buckets').values({
      sid: row.sid, rate_limit_sid: row.rateLimitSid, account_id: row.accountId, application_id: row.applicationId, max: row.max, interval: row.interval,
      created_at: row.createdAt, updated_at: row.updatedAt,
    }).execute();
  }

  async getBucket(accountId: string, rateLimitSid: string, sid: string): Promise<TwilioBucketRow | undefined> {
    const row = await this.db.selectFrom('twilio_rate_limit_buckets').selectAll()
      .where('sid', '=', sid).where('rate_limit_sid', '=', rateLimitSid).where('account_id', '=', accountId).executeTakeFirst();
    return row ? bucketFromRow(row) : undefined;
  }

  async listBuckets(accountId: string, rateLimitSids: readonly string[]): Promise<TwilioBucketRow[]> {
    if (rateLimitSids.length === 0) return [];
    const rows = await this.db.selectFrom('twilio_rate_limit_buckets').selectAll()
      .where('rate_limit_sid', 'in', rateLimitSids).where('account_id', '=', accountId).orderBy('created_at').orderBy('sid').execute();
    return rows.map(bucketFromRow);
  }

  async updateBucket(row: TwilioBucketRow): Promise<void> {
    await this.db.updateTable('twilio_rate_limit_buckets').set({ max: row.max, interval: row.interval, updated_at: row.updatedAt })
      .where('sid', '=', row.sid).where('account_id', '=', row.accountId).execute();
  }

  async deleteBucket(accountId: string, rateLimitSid: string, sid: string): Promise<boolean> {
    const deleted = await this.db.deleteFrom('twilio_rate_limit_buckets').where('sid', '=', sid).where('rate_limit_sid', '=', rateLimitSid).where('account_id', '=', accountId).executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }
}
