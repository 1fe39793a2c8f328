// Use cases of Twilio Verify's Entities, Factors and Challenges, whatever the factor's type. An Entity
// is a user of a Service (the customer's `identity`), made by its first factor when not made before;
// a Factor one of its authenticators; a Challenge one sign-in asking a factor for proof. The TOTP
// factor's own rules are in totp-factors.ts, the passkeys factor's beside it; both keep their state in
// store.factors (store/factor-store.ts) and audit through the unit of work.
import { fail, ok, type Result } from '../domain/errors.js';
import { challengeStatusAt, isIdentity, newEntitySid, type ChallengeStatus } from '../domain/factors.js';
import type { PinKeyring } from '../domain/pin-secrets.js';
import type { ChallengeFilter, ChallengeRow, EntityRow, FactorRow } from '../store/factor-store.js';
import type { Store } from '../store/store.js';
import type { Principal, ServiceContext } from './context.js';
import { getService, type TwilioService } from './twilio-services.js';
import { inUnitOfWork, type UnitOfWork } from './unit-of-work.js';

export function entityNotFound(identity: string) {
  return fail('ENTITY_NOT_FOUND', `Entity ${identity} was not found`);
}

export function factorNotFound(sid: string) {
  return fail('FACTOR_NOT_FOUND', `Factor ${sid} was not found`);
}

export function challengeNotFound(sid: string) {
  return fail('CHALLENGE_NOT_FOUND', `Challenge ${sid} was not found`);
}

/** Twilio's 60306 for a parameter of these resources it refuses. */
export function invalidParameter(field: string, message: string) {
  return fail('FACTOR_REQUEST_INVALID', `Invalid parameter ${field}: ${message}`, { validationErrors: { [field]: [message] } });
}

export interface EntityScope {
  service: TwilioService;
  entity: EntityRow;
}

/** The Service and, in it, the entity of `identity` (a Service or entity not found is a failure). */
export async function findEntity(ctx: ServiceContext, principal: Principal, serviceSid: string, identity: string): Promise<Result<EntityScope>> {
  const service = await getService(ctx, principal, serviceSid);
  if (!service.ok) return service;
  const entity = isIdentity(identity) ? await ctx.store.factors.getEntity(principal.accountId, service.value.application.id, identity) : undefined;
  return entity ? ok({ service: service.value, entity }) : entityNotFound(identity);
}

/** The entity of `identity`, made (and audited) when the Service has none: a first factor makes its user. */
export async function ensureEntity(unit: UnitOfWork, service: TwilioService, identity: string): Promise<Result<{ entity: EntityRow; created: boolean }>> {
  if (!isIdentity(identity)) return invalidParameter('Identity', 'must be 8 to 64 letters and digits, in groups separated by single dashes');
  const now = unit.ctx.clock();
  const made = await unit.ctx.store.factors.ensureEntity({
    sid: newEntitySid(), accountId: unit.principal.accountId, applicationId: service.application.id, identity, createdAt: now, updatedAt: now,
  });
  if (made.created) unit.audit({ event: 'factor.entity.create', applicationId: service.application.id, reason: made.entity.sid });
  return ok(made);
}

export async function createEntity(ctx: ServiceContext, principal: Principal, serviceSid: string, identity: string): Promise<Result<EntityScope>> {
  const service = await getService(ctx, principal, serviceSid);
  if (!service.ok) return service;
  return inUnitOfWork(ctx, principal, async (unit) => {
    const made = await ensureEntity(unit, service.value, identity);
    return made.ok ? ok({ service: service.value, entity: made.value.entity }) : made;
  });
}

export async function listEntities(ctx: ServiceContext, principal: Principal, serviceSid: string, offset: number, limit: number): Promise<Result<{ service: TwilioService; entities: EntityRow[] }>> {
  const service = await getService(ctx, principal, serviceSid);
  if (!service.ok) return service;
  return ok({ service: service.value, entities: await ctx.store.factors.listEntities(principal.accountId, service.value.application.id, offset, limit) });
}

/** Deletes the entity with its factors and challenges. */
export async function deleteEntity(ctx: ServiceContext, principal: Principal, serviceSid: string, identity: string): Promise<Result<null>> {
  const found = await findEntity(ctx, principal, serviceSid, identity);
  if (!found.ok) return found;
  return inUnitOfWork(ctx, principal, async (unit) => {
    if (!await ctx.store.factors.deleteEntity(principal.accountId, found.value.service.application.id, identity)) return entityNotFound(identity);
    unit.audit({ event: 'factor.entity.delete', applicationId: found.value.service.application.id, reason: found.value.entity.sid });
    return ok(null);
  });
}

export interface FactorScope extends EntityScope {
  factor: FactorRow;
}

/** A factor of the entity (one of another entity, or another Service, is not found). */
export async function findFactor(ctx: ServiceContext, principal: Principal, serviceSid: string, identity: string, factorSid: string): Promise<Result<FactorScope>> {
  const found = await findEntity(ctx, principal, serviceSid, identity);
  if (!found.ok) return found;
  const factor = await ctx.store.factors.getFactor(principal.accountId, found.value.service.application.id, factorSid);
  return factor?.entitySid === found.value.entity.sid ? ok({ ...found.value, factor }) : factorNotFound(factorSid);
}

export async function listFactors(ctx: ServiceContext, principal: Principal, serviceSid: string, identity: string): Promise<Result<EntityScope & { factors: FactorRow[] }>> {
  const found = await findEntity(ctx, principal, serviceSid, identity);
  if (!found.ok) return found;
  return ok({ ...found.value, factors: await ctx.store.factors.listFactors(principal.accountId, found.value.entity.sid) });
}

export async function deleteFactor(ctx: ServiceContext, principal: Principal, serviceSid: string, identity: string, factorSid: string): Promise<Result<null>> {
  const found = await findFactor(ctx, principal, serviceSid, identity, factorSid);
  if (!found.ok) return found;
  return inUnitOfWork(ctx, principal, async (unit) => {
    if (!await ctx.store.factors.deleteFactor(principal.accountId, factorSid)) return factorNotFound(factorSid);
    unit.audit({ event: 'factor.delete', applicationId: found.value.service.application.id, reason: `${found.value.factor.factorType} ${factorSid}` });
    return ok(null);
  });
}

export interface ChallengeScope extends EntityScope {
  challenge: ChallengeRow;
  /** The challenge's status at the time of the request. */
  status: ChallengeStatus;
}

export async function findChallenge(ctx: ServiceContext, principal: Principal, serviceSid: string, identity: string, challengeSid: string): Promise<Result<ChallengeScope>> {
  const found = await findEntity(ctx, principal, serviceSid, identity);
  if (!found.ok) return found;
  const challenge = await ctx.store.factors.getChallenge(principal.accountId, found.value.service.application.id, challengeSid);
  if (challenge?.entitySid !== found.value.entity.sid) return challengeNotFound(challengeSid);
  return ok({ ...found.value, challenge, status: challengeStatusAt(challenge.status, challenge.expiresAt, ctx.clock()) });
}

export async function listChallenges(ctx: ServiceContext, principal: Principal, serviceSid: string, identity: string, filter: ChallengeFilter, offset: number, limit: number): Promise<Result<EntityScope & { challenges: ChallengeScope['challenge'][]; now: number }>> {
  const found = await findEntity(ctx, principal, serviceSid, identity);
  if (!found.ok) return found;
  const now = ctx.clock();
  return ok({ ...found.value, now, challenges: await ctx.store.factors.listChallenges(principal.accountId, found.value.entity.sid, filter, now, offset, limit) });
}

/**
 * At start, as reencryptWebhookSecrets does for subscription secrets: factor secrets (TOTP seeds)
 * encrypted under a previous TWOFA_SECRET move to the current one. One that no configured secret
 * opens is counted and left: its factor cannot be checked until it is made again.
 */
export async function reencryptFactorSecrets(store: Store, keyring: PinKeyring, logger: { warn: (obj: object, msg: string) => void }): Promise<void> {
  const current = `${keyring.currentKeyId}:`;
  let unreadable = 0;
  for (const { sid, ciphertext } of await store.factors.listSecretCiphertexts()) {
    if (ciphertext.startsWith(current)) continue;
    const secret = keyring.decryptFactorSecret(sid, ciphertext);
    if (secret === null) {
      unreadable += 1;
      continue;
    }
    await store.factors.reencryptSecret(sid, keyring.encryptFactorSecret(sid, secret), ciphertext);
  }
  if (unreadable > 0) logger.warn({ factors: unreadable }, 'TOTP factor secrets made under a TWOFA_SECRET that is no longer configured: those factors cannot be checked; delete them and make new ones');
}
