// Entities, Factors and Challenges in memory (store/factor-store.ts), for the services' unit tests.
// Each change is made synchronously between two awaits, so the conditional updates are race gates
// here as the database's conditional UPDATEs are there.
import type { ChallengeFilter, ChallengeRow, EntityRow, FactorGuessing, FactorRow, FactorStore, FactorUse, PasskeyCredential } from '../factor-store.js';
import { challengeStatusAt } from '../../domain/factors.js';

const copy = <T>(value: T): T => structuredClone(value);
const byAge = (a: { createdAt: number; sid: string }, b: { createdAt: number; sid: string }) => a.createdAt - b.createdAt || a.sid.localeCompare(b.sid);

/** Whether `use` is above the factor's last use (see FactorUse). */
function raises(factor: FactorRow, use: FactorUse): boolean {
  if (use.kind === 'totp') return factor.lastUsedStep === null || factor.lastUsedStep < use.step;
  return factor.signCount === null || factor.signCount < use.signCount || (use.signCount === 0 && factor.signCount === 0);
}

function applyUse(factor: FactorRow, use: FactorUse, now: number): void {
  if (use.kind === 'totp') factor.lastUsedStep = use.step;
  else factor.signCount = use.signCount;
  factor.updatedAt = now;
}

export class MemoryFactorStore implements FactorStore {
  private readonly entities = new Map<string, EntityRow>();
  private readonly factors = new Map<string, FactorRow>();
  private readonly challenges = new Map<string, ChallengeRow>();

  async ensureEntity(row: EntityRow): Promise<{ entity: EntityRow; created: boolean }> {
    const existing = [...this.entities.values()].find((e) => e.applicationId === row.applicationId && e.identity === row.identity);
    if (existing) return { entity: copy(existing), created: false };
    this.entities.set(row.sid, copy(row));
    return { entity: copy(row), created: true };
  }

  async getEntity(accountId: string, applicationId: string, identity: string): Promise<EntityRow | undefined> {
    const found = [...this.entities.values()].find((e) => e.accountId === accountId && e.applicationId === applicationId && e.identity === identity);
    return found && copy(found);
  }

  async getEntityBySid(accountId: string, sid: string): Promise<EntityRow | undefined> {
    const found = this.entities.get(sid);
    return found?.accountId === accountId ? copy(found) : undefined;
  }

  async listEntities(accountId: string, applicationId: string, offset: number, limit: number): Promise<EntityRow[]> {
    return [...this.entities.values()].filter((e) => e.accountId === accountId && e.applicationId === applicationId).sort(byAge).slice(offset, offset + limit).map(copy);
  }

  async deleteEntity(accountId: string, applicationId: string, identity: string): Promise<boolean> {
    const entity = [...this.entities.values()].find((e) => e.accountId === accountId && e.applicationId === applicationId && e.identity === identity);
    if (!entity) return false;
    this.entities.delete(entity.sid);
    for (const f of [...this.factors.values()]) if (f.entitySid === entity.sid) this.factors.delete(f.sid);
    for (const c of [...this.challenges.values()]) if (c.entitySid === entity.sid) this.challenges.delete(c.sid);
    return true;
  }

  async insertFactor(row: FactorRow): Promise<void> {
    if (this.factors.has(row.sid)) throw new Error(`factor ${row.sid} exists`);
    this.factors.set(row.sid, copy(row));
  }

  private factor(accountId: string, sid: string): FactorRow | undefined {
    const found = this.factors.get(sid);
    return found?.accountId === accountId ? found : undefined;
  }

  async getFactor(accountId: string, applicationId: string, sid: string): Promise<FactorRow | undefined> {
    const found = this.factor(accountId, sid);
    return found?.applicationId === applicationId ? copy(found) : undefined;
  }

  async listFactors(accountId: string, entitySid: string): Promise<FactorRow[]> {
    return [...this.factors.values()].filter((f) => f.accountId === accountId && f.entitySid === entitySid).sort(byAge).map(copy);
  }

  async listApplicationFactors(accountId: string, applicationId: string, offset: number, limit: number): Promise<FactorRow[]> {
    return [...this.factors.values()].filter((f) => f.accountId === accountId && f.applicationId === applicationId).sort(byAge).reverse().slice(offset, offset + limit).map(copy);
  }

  async updateFactor(accountId: string, sid: string, fields: Pick<FactorRow, 'friendlyName' | 'config' | 'metadata'>, now: number): Promise<boolean> {
    const found = this.factor(accountId, sid);
    if (!found) return false;
    Object.assign(found, copy(fields), { updatedAt: now });
    return true;
  }

  async deleteFactor(accountId: string, sid: string): Promise<boolean> {
    if (!this.factor(accountId, sid)) return false;
    this.factors.delete(sid);
    for (const c of [...this.challenges.values()]) if (c.factorSid === sid) this.challenges.delete(c.sid);
    return true;
  }

  async countFactorVerification(accountId: string, sid: string, max: number, now: number): Promise<FactorRow | undefined> {
    const found = this.factor(accountId, sid);
    if (!found || found.status !== 'unverified' || found.verificationAttempts >= max) return undefined;
    found.verificationAttempts += 1;
    found.updatedAt = now;
    return copy(found);
  }

  async verifyFactor(accountId: string, sid: string, now: number, proof: { use?: FactorUse; credential?: PasskeyCredential }): Promise<boolean> {
    const found = this.factor(accountId, sid);
    if (!found || found.status !== 'unverified') return false;
    if (proof.use?.kind === 'totp' && !raises(found, proof.use)) return false;
    if (proof.use?.kind === 'totp') applyUse(found, proof.use, now);
    if (proof.credential) {
      Object.assign(found, {
        credentialId: proof.credential.credentialId, publicKey: proof.credential.publicKey, signCount: proof.credential.signCount,
        transports: copy(proof.credential.transports), registrationChallenge: null,
      });
    }
    Object.assign(found, { status: 'verified', verificationAttempts: 0, updatedAt: now });
    return true;
  }

  async findFactorByCredential(applicationId: string, credentialId: string): Promise<FactorRow | undefined> {
    const found = [...this.factors.values()].find((f) => f.applicationId === applicationId && f.credentialId === credentialId);
    return found && copy(found);
  }

  async findFactorByRegistrationChallenge(accountId: string, applicationId: string, challenge: string): Promise<FactorRow | undefined> {
    const found = [...this.factors.values()].find((f) => f.accountId === accountId && f.applicationId === applicationId && f.registrationChallenge === challenge);
    return found && copy(found);
  }

  async listSecretCiphertexts(): Promise<Array<{ sid: string; ciphertext: string }>> {
    return [...this.factors.values()].flatMap((f) => (f.secretCiphertext === null ? [] : [{ sid: f.sid, ciphertext: f.secretCiphertext }]));
  }

  async reencryptSecret(sid: string, ciphertext: string, previous: string): Promise<void> {
    const found = this.factors.get(sid);
    if (found?.secretCiphertext === previous) found.secretCiphertext = ciphertext;
  }

  async insertChallenge(row: ChallengeRow): Promise<void> {
    if (this.challenges.has(row.sid)) throw new Error(`challenge ${row.sid} exists`);
    this.challenges.set(row.sid, copy(row));
  }

  private challenge(accountId: string, sid: string): ChallengeRow | undefined {
    const found = this.challenges.get(sid);
    return found?.accountId === accountId ? found : undefined;
  }

  async getChallenge(accountId: string, applicationId: string, sid: string): Promise<ChallengeRow | undefined> {
    const found = this.challenge(accountId, sid);
    return found?.applicationId === applicationId ? copy(found) : undefined;
  }

  async findChallengeByNonce(accountId: string, applicationId: string, nonce: string): Promise<ChallengeRow | undefined> {
    const found = [...this.challenges.values()].find((c) => c.accountId === accountId && c.applicationId === applicationId && c.nonce === nonce);
    return found && copy(found);
  }

  async listChallenges(accountId: string, entitySid: string, filter: ChallengeFilter, now: number, offset: number, limit: number): Promise<ChallengeRow[]> {
    const rows = [...this.challenges.values()].filter((c) => c.accountId === accountId && c.entitySid === entitySid
      && (filter.factorSid === undefined || c.factorSid === filter.factorSid)
      && (filter.status === undefined || challengeStatusAt(c.status, c.expiresAt, now) === filter.status)).sort(byAge);
    if (filter.order === 'desc') rows.reverse();
    return rows.slice(offset, offset + limit).map(copy);
  }

  async countChallengeAttempt(accountId: string, sid: string, max: number, now: number): Promise<ChallengeRow | undefined> {
    const found = this.challenge(accountId, sid);
    if (!found || found.status !== 'pending' || found.expiresAt <= now || found.attempts >= max) return undefined;
    found.attempts += 1;
    found.updatedAt = now;
    return copy(found);
  }

  async approveChallenge(accountId: string, sid: string, factor: Pick<FactorRow, 'sid' | 'entitySid'>, use: FactorUse, now: number, metadata?: Record<string, string> | null): Promise<'approved' | 'replayed' | 'ended'> {
    const found = this.challenge(accountId, sid);
    if (!found || found.status !== 'pending' || found.expiresAt <= now || (found.factorSid !== null && found.factorSid !== factor.sid)) return 'ended';
    const owner = this.factor(accountId, factor.sid);
    if (!owner || owner.status !== 'verified' || !raises(owner, use)) return 'replayed';
    applyUse(owner, use, now);
    Object.assign(found, { status: 'approved', respondedAt: now, updatedAt: now, factorSid: factor.sid, entitySid: factor.entitySid }, metadata !== undefined ? { metadata: copy(metadata) } : {});
    return 'approved';
  }

  async purge(cutoff: number, unverifiedBefore: number): Promise<number> {
    let deleted = 0;
    for (const c of [...this.challenges.values()]) if (c.expiresAt <= cutoff) deleted += Number(this.challenges.delete(c.sid));
    for (const f of [...this.factors.values()]) if (f.status === 'unverified' && f.createdAt <= unverifiedBefore) deleted += Number(this.factors.delete(f.sid));
    return deleted;
  }

  async guessingSince(accountId: string, applicationId: string, since: number, maxVerificationAttempts: number): Promise<FactorGuessing> {
    const challenges = [...this.challenges.values()].filter((c) => c.accountId === accountId && c.applicationId === applicationId && c.createdAt >= since);
    return {
      wrongChallengeCodes: challenges.reduce((n, c) => n + c.attempts - (c.status === 'approved' ? 1 : 0), 0),
      deniedChallenges: challenges.filter((c) => c.status === 'denied').length,
      lockedFactors: [...this.factors.values()].filter((f) => f.accountId === accountId && f.applicationId === applicationId && f.status === 'unverified' && f.verificationAttempts >= maxVerificationAttempts).length,
    };
  }

  async denyChallenge(accountId: string, sid: string, now: number): Promise<boolean> {
    const found = this.challenge(accountId, sid);
    if (!found || found.status !== 'pending') return false;
    Object.assign(found, { status: 'denied', respondedAt: now, updatedAt: now });
    return true;
  }
}
