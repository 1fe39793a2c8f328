// Twilio Verify's Entities, Factors and Challenges (domain/factors.ts), shared by TOTP and passkeys.
// Every query is bounded by the account that asks. The race gates are single conditional UPDATEs:
// an attempt is counted before its answer is compared (countFactorVerification, countChallengeAttempt),
// and a factor's use only ever raises its counter (a TOTP code's time step, a passkey's signature
// count), in the transaction that approves the challenge, so a code or an assertion is accepted once.
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { ChallengeStatus, FactorStatus, FactorType, RespondedReason } from '../domain/factors.js';
import { batchOf, inBatches, type PurgeLimits } from './purge-batches.js';
import type { Database, FactorChallengesTable, FactorEntitiesTable, FactorsTable } from './schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface EntityRow {
  sid: string;
  accountId: string;
  applicationId: string;
  identity: string;
  createdAt: number;
  updatedAt: number;
}

export interface FactorRow {
  sid: string;
  accountId: string;
  applicationId: string;
  entitySid: string;
  factorType: FactorType;
  status: FactorStatus;
  friendlyName: string;
  /** TOTP: TotpConfig (domain/totp.ts); passkeys: what the passkeys factor keeps. */
  config: Record<string, unknown>;
  metadata: Record<string, string> | null;
  /** TOTP: the seed, encrypted under the keyring (PinKeyring.encryptFactorSecret). */
  secretCiphertext: string | null;
  /** Passkeys: the WebAuthn challenge the registration must answer; null once verified. */
  registrationChallenge: string | null;
  credentialId: string | null;
  publicKey: string | null;
  signCount: number | null;
  transports: string[] | null;
  /** TOTP: the time step of the last code accepted. */
  lastUsedStep: number | null;
  /** Counted attempts of the verification of an unverified factor. */
  verificationAttempts: number;
  createdAt: number;
  updatedAt: number;
}

export interface ChallengeRow {
  sid: string;
  accountId: string;
  applicationId: string;
  entitySid: string | null;
  factorSid: string | null;
  factorType: FactorType;
  /** As stored: `expired` is never written, it is a pending challenge past expiresAt (challengeStatusAt). */
  status: Exclude<ChallengeStatus, 'expired'>;
  respondedReason: RespondedReason;
  details: Record<string, unknown> | null;
  hiddenDetails: Record<string, string> | null;
  metadata: Record<string, string> | null;
  /** Passkeys: the WebAuthn challenge the assertion must answer. */
  nonce: string | null;
  attempts: number;
  expiresAt: number;
  respondedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A passkey's credential, as its registration proved it. */
export interface PasskeyCredential {
  credentialId: string;
  publicKey: string;
  signCount: number;
  transports: string[] | null;
}

/**
 * What a factor's use raises, never lowers: a TOTP code's time step (a code of that step or an earlier
 * one is refused afterwards: replay), or a passkey's signature counter (it must grow, unless the
 * authenticator keeps none and both are 0: WebAuthn §6.1.1; a counter that falls back means a clone).
 */
export type FactorUse = { kind: 'totp'; step: number } | { kind: 'passkey'; signCount: number };

export interface ChallengeFilter {
  factorSid?: string;
  /** The effective status at `now` (an expired challenge is a pending one past its expiry). */
  status?: ChallengeStatus;
  order: 'asc' | 'desc';
}

export interface FactorStore {
  // Entities of an application.
  /** The identity's entity, made from `row` when it has none (the unique key decides between concurrent creates). */
  ensureEntity(row: EntityRow): Promise<{ entity: EntityRow; created: boolean }>;
  getEntity(accountId: string, applicationId: string, identity: string): Promise<EntityRow | undefined>;
  getEntityBySid(accountId: string, sid: string): Promise<EntityRow | undefined>;
  /** Oldest first. */
  listEntities(accountId: string, applicationId: string, offset: number, limit: number): Promise<EntityRow[]>;
  /** Deletes the entity with its factors and challenges; false when there was none. */
  deleteEntity(accountId: string, applicationId: string, identity: string): Promise<boolean>;

  // Factors of an entity.
  insertFactor(row: FactorRow): Promise<void>;
  getFactor(accountId: string, applicationId: string, sid: string): Promise<FactorRow | undefined>;
  /** An entity's factors, oldest first. */
  listFactors(accountId: string, entitySid: string): Promise<FactorRow[]>;
  /** An application's factors, newest first (the console). */
  listApplicationFactors(accountId: string, applicationId: string, offset: number, limit: number): Promise<FactorRow[]>;
  updateFactor(accountId: string, sid: string, fields: Pick<FactorRow, 'friendlyName' | 'config' | 'metadata'>, now: number): Promise<boolean>;
  /** Deletes the factor with its challenges; false when there was none. */
  deleteFactor(accountId: string, sid: string): Promise<boolean>;
  /**
   * Counts one attempt of an unverified factor's verification, if fewer than `max` were counted (race
   * gate: a conditional UPDATE, written before the answer is compared). The factor as after it, or
   * undefined when nothing was counted (verified, gone, or out of attempts).
   */
  countFactorVerification(accountId: string, sid: string, max: number, now: number): Promise<FactorRow | undefined>;
  /**
   * Marks an unverified factor verified, raising its use (a TOTP code's step) or storing the passkey
   * credential its registration proved. False when it was verified meanwhile, is gone, or the use is
   * not above the last one (the code was just used).
   */
  verifyFactor(accountId: string, sid: string, now: number, proof: { use?: FactorUse; credential?: PasskeyCredential }): Promise<boolean>;
  /** The application's factor holding a passkey credential. */
  findFactorByCredential(applicationId: string, credentialId: string): Promise<FactorRow | undefined>;
  /** The unverified passkeys factor whose registration issued this WebAuthn challenge. */
  findFactorByRegistrationChallenge(accountId: string, applicationId: string, challenge: string): Promise<FactorRow | undefined>;
  /** Seeds kept under a previous secret are re-encrypted at start (secret rotation). */
  listSecretCiphertexts(): Promise<Array<{ sid: string; ciphertext: string }>>;
  /** Replaces the ciphertext if it is still `previous`. */
  reencryptSecret(sid: string, ciphertext: string, previous: string): Promise<void>;

  // Challenges.
  insertChallenge(row: ChallengeRow): Promise<void>;
  getChallenge(accountId: string, applicationId: string, sid: string): Promise<ChallengeRow | undefined>;
  /** The application's challenge that issued this WebAuthn challenge. */
  findChallengeByNonce(accountId: string, applicationId: string, nonce: string): Promise<ChallengeRow | undefined>;
  listChallenges(accountId: string, entitySid: string, filter: ChallengeFilter, now: number, offset: number, limit: number): Promise<ChallengeRow[]>;
  /**
   * Counts one answer of a pending, unexpired challenge, if fewer than `max` were counted (race gate,
   * written before the answer is compared). The challenge as after it, or undefined when nothing was counted.
   */
  countChallengeAttempt(accountId: string, sid: string, max: number, now: number): Promise<ChallengeRow | undefined>;
  /**
   * Approves a pending, unexpired challenge and raises its factor's use, in one transaction; a
   * discoverable passkeys challenge learns its factor and entity here. `replayed`: the use was not
   * above the factor's last (nothing changed); `ended`: no longer pending.
   */
  approveChallenge(accountId: string, sid: string, factor: Pick<FactorRow, 'sid' | 'entitySid'>, use: FactorUse, now: number, metadata?: Record<string, string> | null): Promise<'approved' | 'replayed' | 'ended'>;
  /** Moves a pending challenge to denied; false when it was no longer pending. */
  denyChallenge(accountId: string, sid: string, now: number): Promise<boolean>;
  /**
   * Deletes, in batches, challenges that expired at or before `cutoff` and unverified factors made at
   * or before `unverifiedBefore` (never verified: nobody signs in with them). Answers how many rows.
   */
  purge(cutoff: number, unverifiedBefore: number, limits: PurgeLimits): Promise<number>;
  /** What the security panel shows of guessing against the application's factors since `since`. */
  guessingSince(accountId: string, applicationId: string, since: number, maxVerificationAttempts: number): Promise<FactorGuessing>;
}

export interface FactorGuessing {
  /** Codes that did not approve the challenge they answered (wrong or replayed), in challenges made since. */
  wrongChallengeCodes: number;
  /** Challenges denied since (five wrong codes). */
  deniedChallenges: number;
  /** Unverified factors out of verification attempts (locked out), whenever made. */
  lockedFactors: number;
}

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
const parsed = <T>(text: string | null): T | null => (text === null ? null : JSON.parse(text) as T);
const numberOrNull = (value: number | string | null) => (value === null ? null : Number(value));

function entityFromRow(r: Selectable<FactorEntitiesTable>): EntityRow {
  return { sid: r.sid, accountId: r.account_id, applicationId: r.application_id, identity: r.identity, createdAt: Number(r.created_at), updatedAt: Number(r.updated_at) };
}

function factorFromRow(r: Selectable<FactorsTable>): FactorRow {
  return {
    sid: r.sid, accountId: r.account_id, applicationId: r.application_id, entitySid: r.entity_sid, factorType: r.factor_type as FactorType,
    status: r.status as FactorStatus, friendlyName: r.friendly_name, config: JSON.parse(r.config) as Record<string, unknown>,
    metadata: parsed(r.metadata), secretCiphertext: r.secret_ciphertext, registrationChallenge: r.registration_challenge,
    credentialId: r.credential_id, publicKey: r.public_key, signCount: numberOrNull(r.sign_count), transports: parsed(r.transports),
    lastUsedStep: numberOrNull(r.last_used_step), verificationAttempts: Number(r.verification_attempts),
    createdAt: Number(r.created_at), updatedAt: Number(r.updated_at),
  };
}

function challengeFromRow(r: Selectable<FactorChallengesTable>): ChallengeRow {
  return {
    sid: r.sid, accountId: r.account_id, applicationId: r.application_id, entitySid: r.entity_sid, factorSid: r.factor_sid,
    factorType: r.factor_type as FactorType, status: r.status as ChallengeRow['status'], respondedReason: r.responded_reason as RespondedReason,
    details: parsed(r.details), hiddenDetails: parsed(r.hidden_details), metadata: parsed(r.metadata), nonce: r.nonce,
    attempts: Number(r.attempts), expiresAt: Number(r.expires_at), respondedAt: numberOrNull(r.responded_at),
    createdAt: Number(r.created_at), updatedAt: Number(r.updated_at),
  };
}

/** Thrown inside approveChallenge's transaction to roll the approval back when the factor's use is refused. */
class UseRefused extends Error {}

export class KyselyFactorStore implements FactorStore {
  constructor(private readonly db: Kysely<Database>, private readonly dialect: 'sqlite' | 'postgres') {}

  async ensureEntity(row: EntityRow): Promise<{ entity: EntityRow; created: boolean }> {
    // The unique (application_id, identity) decides between concurrent first factors of one user.
    const inserted = await this.db.insertInto('factor_entities').values({
      sid: row.sid, account_id: row.accountId, application_id: row.applicationId, identity: row.identity, created_at: row.createdAt, updated_at: row.updatedAt,
    }).onConflict((oc) => oc.columns(['application_id', 'identity']).doNothing()).executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { entity: row, created: true };
    const existing = await this.getEntity(row.accountId, row.applicationId, row.identity);
    if (!existing) throw new Error('entity vanished between its insert and its read');
    return { entity: existing, created: false };
  }

  async getEntity(accountId: string, applicationId: string, identity: string): Promise<EntityRow | undefined> {
    const row = await this.db.selectFrom('factor_entities').selectAll()
      .where('application_id', '=', applicationId).where('identity', '=', identity).where('account_id', '=', accountId).executeTakeFirst();
    return row && entityFromRow(row);
  }

  async getEntityBySid(accountId: string, sid: string): Promise<EntityRow | undefined> {
    const row = await this.db.selectFrom('factor_entities').selectAll().where('sid', '=', sid).where('account_id', '=', accountId).executeTakeFirst();
    return row && entityFromRow(row);
  }

  async listEntities(accountId: string, applicationId: string, offset: number, limit: number): Promise<EntityRow[]> {
    const rows = await this.db.selectFrom('factor_entities').selectAll()
      .where('account_id', '=', accountId).where('application_id', '=', applicationId)
      .orderBy('created_at').orderBy('sid').limit(limit).offset(offset).execute();
    return rows.map(entityFromRow);
  }

  async deleteEntity(accountId: string, applicationId: string, identity: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const entity = await trx.deleteFrom('factor_entities')
        .where('application_id', '=', applicationId).where('identity', '=', identity).where('account_id', '=', accountId)
        .returning('sid').executeTakeFirst();
      if (!entity) return false;
      await trx.deleteFrom('factor_challenges').where('entity_sid', '=', entity.sid).execute();
      await trx.deleteFrom('factors').where('entity_sid', '=', entity.sid).execute();
      return true;
    });
  }

  async insertFactor(row: FactorRow): Promise<void> {
    await this.db.insertInto('factors').values({
      sid: row.sid, account_id: row.accountId, application_id: row.applicationId, entity_sid: row.entitySid, factor_type: row.factorType,
      status: row.status, friendly_name: row.friendlyName, config: JSON.stringify(row.config), metadata: json(row.metadata),
      secret_ciphertext: row.secretCiphertext, registration_challenge: row.registrationChallenge, credential_id: row.credentialId,
      public_key: row.publicKey, sign_count: row.signCount, transports: json(row.transports), last_used_step: row.lastUsedStep,
      verification_attempts: row.verificationAttempts, created_at: row.createdAt, updated_at: row.updatedAt,
    }).execute();
  }

  async getFactor(accountId: string, applicationId: string, sid: string): Promise<FactorRow | undefined> {
    const row = await this.db.selectFrom('factors').selectAll()
      .where('sid', '=', sid).where('application_id', '=', applicationId).where('account_id', '=', accountId).executeTakeFirst();
    return row && factorFromRow(row);
  }

  async listFactors(accountId: string, entitySid: string): Promise<FactorRow[]> {
    const rows = await this.db.selectFrom('factors').selectAll().where('entity_sid', '=', entitySid).where('account_id', '=', accountId)
      .orderBy('created_at').orderBy('sid').execute();
    return rows.map(factorFromRow);
  }

  async listApplicationFactors(accountId: string, applicationId: string, offset: number, limit: number): Promise<FactorRow[]> {
    const rows = await this.db.selectFrom('factors').selectAll().where('application_id', '=', applicationId).where('account_id', '=', accountId)
      .orderBy('created_at', 'desc').orderBy('sid', 'desc').limit(limit).offset(offset).execute();
    return rows.map(factorFromRow);
  }

  async updateFactor(accountId: string, sid: string, fields: Pick<FactorRow, 'friendlyName' | 'config' | 'metadata'>, now: number): Promise<boolean> {
    const updated = await this.db.updateTable('factors')
      .set({ friendly_name: fields.friendlyName, config: JSON.stringify(fields.config), metadata: json(fields.metadata), updated_at: now })
      .where('sid', '=', sid).where('account_id', '=', accountId).executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  async deleteFactor(accountId: string, sid: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx.deleteFrom('factors').where('sid', '=', sid).where('account_id', '=', accountId).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return false;
      await trx.deleteFrom('factor_challenges').where('factor_sid', '=', sid).execute();
      return true;
    });
  }

  async countFactorVerification(accountId: string, sid: string, max: number, now: number): Promise<FactorRow | undefined> {
    // Race gate: counted only while under `max`, before the answer is compared.
    const row = await this.db.updateTable('factors')
      .set({ verification_attempts: sql<number>`verification_attempts + 1`, updated_at: now })
      .where('sid', '=', sid).where('account_id', '=', accountId).where('status', '=', 'unverified').where('verification_attempts', '<', max)
      .returningAll().executeTakeFirst();
    return row && factorFromRow(row);
  }

  async verifyFactor(accountId: string, sid: string, now: number, proof: { use?: FactorUse; credential?: PasskeyCredential }): Promise<boolean> {
    // Race gate: only an unverified factor becomes verified, once; a TOTP code's step must be above the last accepted.
    let query = this.db.updateTable('factors').set({
      status: 'verified', verification_attempts: 0, updated_at: now,
      ...(proof.use?.kind === 'totp' ? { last_used_step: proof.use.step } : {}),
      ...(proof.credential ? {
        credential_id: proof.credential.credentialId, public_key: proof.credential.publicKey, sign_count: proof.credential.signCount,
        transports: json(proof.credential.transports), registration_challenge: null,
      } : {}),
    }).where('sid', '=', sid).where('account_id', '=', accountId).where('status', '=', 'unverified');
    if (proof.use?.kind === 'totp') {
      const step = proof.use.step;
      query = query.where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]));
    }
    const updated = await query.executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  async findFactorByCredential(applicationId: string, credentialId: string): Promise<FactorRow | undefined> {
    const row = await this.db.selectFrom('factors').selectAll().where('application_id', '=', applicationId).where('credential_id', '=', credentialId).executeTakeFirst();
    return row && factorFromRow(row);
  }

  async findFactorByRegistrationChallenge(accountId: string, applicationId: string, challenge: string): Promise<FactorRow | undefined> {
    const row = await this.db.selectFrom('factors').selectAll()
      .where('registration_challenge', '=', challenge).where('application_id', '=', applicationId).where('account_id', '=', accountId).executeTakeFirst();
    return row && factorFromRow(row);
  }

  async listSecretCiphertexts(): Promise<Array<{ sid: string; ciphertext: string }>> {
    const rows = await this.db.selectFrom('factors').select(['sid', 'secret_ciphertext']).where('secret_ciphertext', 'is not', null).execute();
    return rows.map((r) => ({ sid: r.sid, ciphertext: r.secret_ciphertext ?? '' }));
  }

  async reencryptSecret(sid: string, ciphertext: string, previous: string): Promise<void> {
    await this.db.updateTable('factors').set({ secret_ciphertext: ciphertext }).where('sid', '=', sid).where('secret_ciphertext', '=', previous).execute();
  }

  async insertChallenge(row: ChallengeRow): Promise<void> {
    await this.db.insertInto('factor_challenges').values({
      sid: row.sid, account_id: row.accountId, application_id: row.applicationId, entity_sid: row.entitySid, factor_sid: row.factorSid,
      factor_type: row.factorType, status: row.status, responded_reason: row.respondedReason, details: json(row.details),
      hidden_details: json(row.hiddenDetails), metadata: json(row.metadata), nonce: row.nonce, attempts: row.attempts,
      expires_at: row.expiresAt, responded_at: row.respondedAt, created_at: row.createdAt, updated_at: row.updatedAt,
    }).execute();
  }

  async getChallenge(accountId: string, applicationId: string, sid: string): Promise<ChallengeRow | undefined> {
    const row = await this.db.selectFrom('factor_challenges').selectAll()
      .where('sid', '=', sid).where('application_id', '=', applicationId).where('account_id', '=', accountId).executeTakeFirst();
    return row && challengeFromRow(row);
  }

  async findChallengeByNonce(accountId: string, applicationId: string, nonce: string): Promise<ChallengeRow | undefined> {
    const row = await this.db.selectFrom('factor_challenges').selectAll()
      .where('nonce', '=', nonce).where('application_id', '=', applicationId).where('account_id', '=', accountId).executeTakeFirst();
    return row && challengeFromRow(row);
  }

  async listChallenges(accountId: string, entitySid: string, filter: ChallengeFilter, now: number, offset: number, limit: number): Promise<ChallengeRow[]> {
    let query = this.db.selectFrom('factor_challenges').selectAll().where('entity_sid', '=', entitySid).where('account_id', '=', accountId);
    if (filter.factorSid !== undefined) query = query.where('factor_sid', '=', filter.factorSid);
    if (filter.status === 'expired') query = query.where('status', '=', 'pending').where('expires_at', '<=', now);
    else if (filter.status === 'pending') query = query.where('status', '=', 'pending').where('expires_at', '>', now);
    else if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    const rows = await query.orderBy('created_at', filter.order).orderBy('sid', filter.order).limit(limit).offset(offset).execute();
    return rows.map(challengeFromRow);
  }

  async countChallengeAttempt(accountId: string, sid: string, max: number, now: number): Promise<ChallengeRow | undefined> {
    // Race gate: counted only while pending, unexpired and under `max`, before the answer is compared.
    const row = await this.db.updateTable('factor_challenges')
      .set({ attempts: sql<number>`attempts + 1`, updated_at: now })
      .where('sid', '=', sid).where('account_id', '=', accountId).where('status', '=', 'pending').where('expires_at', '>', now).where('attempts', '<', max)
      .returningAll().executeTakeFirst();
    return row && challengeFromRow(row);
  }

  async approveChallenge(accountId: string, sid: string, factor: Pick<FactorRow, 'sid' | 'entitySid'>, use: FactorUse, now: number, metadata?: Record<string, string> | null): Promise<'approved' | 'replayed' | 'ended'> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        // Race gate: one approval of a pending challenge...
        const approved = await trx.updateTable('factor_challenges').set({
          status: 'approved', responded_at: now, updated_at: now, factor_sid: factor.sid, entity_sid: factor.entitySid,
          ...(metadata !== undefined ? { metadata: json(metadata) } : {}),
        }).where('sid', '=', sid).where('account_id', '=', accountId).where('status', '=', 'pending').where('expires_at', '>', now)
          .where((eb) => eb.or([eb('factor_sid', 'is', null), eb('factor_sid', '=', factor.sid)])).executeTakeFirst();
        if (Number(approved.numUpdatedRows) === 0) return 'ended' as const;
        // ...and one use of each code or signature count by the factor, or neither.
        if (!await raiseUse(trx, accountId, factor.sid, use, now)) throw new UseRefused();
        return 'approved' as const;
      });
    } catch (err) {
      if (err instanceof UseRefused) return 'replayed';
      throw err;
    }
  }

  async purge(cutoff: number, unverifiedBefore: number, limits: PurgeLimits): Promise<number> {
    const { db, dialect } = this;
    const challenges = await inBatches(limits, async (batch) => (await db.deleteFrom('factor_challenges')
      .where('sid', 'in', batchOf(db.selectFrom('factor_challenges').select('sid').where('expires_at', '<=', cutoff).orderBy('expires_at').limit(batch), dialect))
      .executeTakeFirst()).numDeletedRows);
    const factors = await inBatches(limits, async (batch) => (await db.deleteFrom('factors')
      .where('sid', 'in', batchOf(db.selectFrom('factors').select('sid').where('status', '=', 'unverified').where('created_at', '<=', unverifiedBefore)
        .orderBy('created_at').limit(batch), dialect))
      .executeTakeFirst()).numDeletedRows);
    return challenges + factors;
  }

  async guessingSince(accountId: string, applicationId: string, since: number, maxVerificationAttempts: number): Promise<FactorGuessing> {
    const challenges = await this.db.selectFrom('factor_challenges')
      .select([
        sql<number | string | null>`sum(attempts - case when status = 'approved' then 1 else 0 end)`.as('wrong'),
        sql<number | string | null>`sum(case when status = 'denied' then 1 else 0 end)`.as('denied'),
      ])
      .where('application_id', '=', applicationId).where('account_id', '=', accountId).where('created_at', '>=', since).executeTakeFirst();
    const locked = await this.db.selectFrom('factors').select(sql<number | string>`count(*)`.as('n'))
      .where('application_id', '=', applicationId).where('account_id', '=', accountId).where('status', '=', 'unverified')
      .where('verification_attempts', '>=', maxVerificationAttempts).executeTakeFirst();
    return { wrongChallengeCodes: Number(challenges?.wrong ?? 0), deniedChallenges: Number(challenges?.denied ?? 0), lockedFactors: Number(locked?.n ?? 0) };
  }

  async denyChallenge(accountId: string, sid: string, now: number): Promise<boolean> {
    const denied = await this.db.updateTable('factor_challenges').set({ status: 'denied', responded_at: now, updated_at: now })
      .where('sid', '=', sid).where('account_id', '=', accountId).where('status', '=', 'pending').executeTakeFirst();
    return Number(denied.numUpdatedRows) > 0;
  }
}

/** Raises a verified factor's use if the new one is above the last (conditional UPDATE); false otherwise. */
async function raiseUse(db: Db, accountId: string, factorSid: string, use: FactorUse, now: number): Promise<boolean> {
  const base = db.updateTable('factors').where('sid', '=', factorSid).where('account_id', '=', accountId).where('status', '=', 'verified');
  const updated = use.kind === 'totp'
    ? await base.set({ last_used_step: use.step, updated_at: now })
      .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', use.step)])).executeTakeFirst()
    : await base.set({ sign_count: use.signCount, updated_at: now })
      .where((eb) => eb.or([
        eb('sign_count', 'is', null), eb('sign_count', '<', use.signCount),
        // An authenticator that keeps no counter answers 0 every time.
        ...(use.signCount === 0 ? [eb('sign_count', '=', 0)] : []),
      ])).executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}
