// Passkey factors and their challenges (docs/factors.md, "Passkeys"), for Twilio's /Passkeys routes
// and /api/v1 alike. A factor is made unverified with WebAuthn creation options whose challenge it
// keeps; the browser's attestation verifies it (the credential's public key and sign counter are
// stored). A challenge keeps the WebAuthn challenge of its request options; the browser's assertion
// approves it, raising the factor's sign counter in the same transaction. Neither answer names the
// factor or challenge: each is found by the challenge its clientDataJSON claims (checked again, with
// the origin, the relying party and the signature, in service/webauthn.ts).
//
// Single use: a registration's challenge is cleared when the factor is verified, a challenge's is
// spent when it is approved (conditional UPDATEs: of two answers to one challenge, one wins).
// Expiry: a registration lasts REGISTRATION_TIMEOUT_MS, a challenge until its expiration date.
// Every outcome, refusals included, is audited with its reason.
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { fail, FieldErrors, ok, type Result } from '../domain/errors.js';
import {
  CHALLENGE_ATTEMPTS, CHALLENGE_DEFAULT_TTL_MS, CHALLENGE_MAX_TTL_MS, challengeStatusAt, FACTOR_VERIFICATION_ATTEMPTS, FRIENDLY_NAME_MAX,
  isIdentity, isSidOf, newChallengeSid, newFactorSid,
} from '../domain/factors.js';
import { claimedChallenge, effectivePasskeyConfig, REGISTRATION_TIMEOUT_MS, type PasskeyConfig, type PasskeyConfigPatch } from '../domain/passkeys.js';
import { serviceSid } from '../domain/twilio-sids.js';
import type { ChallengeRow, EntityRow, FactorRow } from '../store/factor-store.js';
import type { Principal, ServiceContext } from './context.js';
import { ensureEntity, invalidParameter } from './factors.js';
import { getService, type TwilioService } from './twilio-services.js';
import { inUnitOfWork, type UnitOfWork } from './unit-of-work.js';
import { assertedCredentialId, authenticationOptions, newChallenge, registrationOptions, verifyAuthentication, verifyRegistration, type CeremonyRefusal } from './webauthn.js';

export interface PasskeyRegistration {
  entity: EntityRow;
  factor: FactorRow;
  options: { publicKey: PublicKeyCredentialCreationOptionsJSON };
}

export interface PasskeyChallenge {
  challenge: ChallengeRow;
  /** The challenge's entity (null for a discoverable credential until its answer names the user). */
  entity: EntityRow | null;
  options: { publicKey: PublicKeyCredentialRequestOptionsJSON };
}

export interface NewPasskeyInput {
  identity: string;
  friendlyName: string;
  config?: PasskeyConfigPatch;
}

export interface NewPasskeyChallengeInput {
  identity?: string;
  factorSid?: string;
  /** Milliseconds since the epoch; default now + 5 minutes, at most now + 60. */
  expiresAt?: number;
}

/** The Service (application) whose passkeys a request handles: its `Passkeys.*` settings are where a passkey's start. */
export interface PasskeyScope {
  service: TwilioService;
}

/** The scope of a Twilio request: the Service its SID names (Twilio's not-found otherwise). */
export async function twilioPasskeyScope(ctx: ServiceContext, principal: Principal, sid: string): Promise<Result<PasskeyScope>> {
  const service = await getService(ctx, principal, sid);
  return service.ok ? ok({ service: service.value }) : service;
}

/** The scope of an /api/v1 request: the application it names. */
export async function applicationPasskeyScope(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<Result<PasskeyScope>> {
  const service = await getService(ctx, principal, serviceSid(applicationId));
  return service.ok ? ok({ service: service.value }) : fail('APPLICATION_NOT_FOUND', `Application ${applicationId} not found`);
}

/** The config a factor row keeps (as created: the effective settings at that time). */
const configOf = (factor: FactorRow) => factor.config as unknown as PasskeyConfig;

/** A refusal of a ceremony's answer, audited with its reason (`event`) before it is answered. */
function refused(unit: UnitOfWork, kind: 'registration' | 'assertion', event: { applicationId: string; subject: string | null; reason: CeremonyRefusal | 'expired' | 'unknown_challenge' | 'ended' | 'replayed'; detail: string }) {
  unit.audit({
    event: kind === 'registration' ? 'factor.passkey.verify.refused' : 'challenge.passkey.refused',
    applicationId: event.applicationId, reason: `${event.subject ?? '-'} ${event.reason}`,
  });
  return fail(kind === 'registration' ? 'PASSKEY_REGISTRATION_REFUSED' : 'PASSKEY_ASSERTION_REFUSED', `The passkey was refused: ${event.detail}`);
}

/** POST /Passkeys/Factors: an unverified passkey factor and the options of its registration. */
export function createPasskeyFactor(ctx: ServiceContext, principal: Principal, { service }: PasskeyScope, input: NewPasskeyInput): Promise<Result<PasskeyRegistration>> {
  const applicationId = service.application.id;
  return inUnitOfWork(ctx, principal, async (unit) => {
    const errors = new FieldErrors();
    if (!isIdentity(input.identity)) errors.add('identity', '8 to 64 letters and digits, in groups separated by single dashes (no personal data)');
    if (input.friendlyName.trim() === '' || input.friendlyName.length > FRIENDLY_NAME_MAX) errors.add('friendly_name', `1 to ${FRIENDLY_NAME_MAX} characters`);
    const config = effectivePasskeyConfig(service.settings.passkeys, input.config);
    if (!config.ok && config.problem === 'invalid') for (const [field, message] of Object.entries(config.errors)) errors.add(`config.${field}`, message);
    if (!errors.empty) return invalidFields(errors);
    if (!config.ok) {
      return fail('PASSKEYS_CRITERIA_MISSING', `Authenticator criteria are missing: ${config.problem === 'criteria' ? config.fields.join(', ') : ''} (set them in the request's config or the Service's Passkeys.* settings)`);
    }
    const now = ctx.clock();
    const made = await ensureEntity(unit, service, input.identity);
    if (!made.ok) return made;
    const { entity } = made.value;
    const registered = (await ctx.store.factors.listFactors(principal.accountId, entity.sid))
      .filter((f) => f.factorType === 'passkeys' && f.status === 'verified' && f.credentialId !== null && configOf(f).relying_party.id === config.config.relying_party.id);
    const challenge = newChallenge();
    const factor: FactorRow = {
      sid: newFactorSid(), accountId: principal.accountId, applicationId, entitySid: entity.sid, factorType: 'passkeys', status: 'unverified',
      friendlyName: input.friendlyName, config: config.config as unknown as Record<string, unknown>, metadata: null, secretCiphertext: null,
      registrationChallenge: challenge, credentialId: null, publicKey: null, signCount: null, transports: null, lastUsedStep: null,
      verificationAttempts: 0, createdAt: now, updatedAt: now,
    };
    await ctx.store.factors.insertFactor(factor);
    const publicKey = await registrationOptions({ config: config.config, userHandle: entity.sid, userName: input.friendlyName, challenge, excludeCredentialIds: registered.map((f) => f.credentialId!) });
    unit.audit({ event: 'factor.passkey.create', applicationId, reason: `${factor.sid} rp=${config.config.relying_party.id}` });
    return ok({ entity, factor, options: { publicKey } });
  });
}

/** POST /Passkeys/VerifyFactor: the attestation of navigator.credentials.create() verifies the factor it answers. */
export function verifyPasskeyFactor(ctx: ServiceContext, principal: Principal, { service }: PasskeyScope, body: unknown): Promise<Result<{ factor: FactorRow; entity: EntityRow }>> {
  const applicationId = service.application.id;
  return inUnitOfWork(ctx, principal, async (unit) => {
    const challenge = claimedChallenge(responseField(body, 'clientDataJSON'));
    if (challenge === undefined) return invalidParameter('response.clientDataJSON', 'must be the base64url client data of navigator.credentials.create(), with its challenge');
    const found = await ctx.store.factors.findFactorByRegistrationChallenge(principal.accountId, applicationId, challenge);
    if (!found || found.factorType !== 'passkeys' || found.status !== 'unverified') {
      return refused(unit, 'registration', { applicationId, subject: null, reason: 'unknown_challenge', detail: 'its challenge is not one of a passkey registration waiting in this Service (unknown, already used, or of another Service)' });
    }
    const now = ctx.clock();
    if (now >= found.createdAt + REGISTRATION_TIMEOUT_MS) {
      return refused(unit, 'registration', { applicationId, subject: found.sid, reason: 'expired', detail: `its registration expired ${REGISTRATION_TIMEOUT_MS / 60_000} minutes after the factor was created: create the factor again` });
    }
    // Race gate: the attempt is counted before the attestation is checked.
    const counted = await ctx.store.factors.countFactorVerification(principal.accountId, found.sid, FACTOR_VERIFICATION_ATTEMPTS, now);
    if (!counted) {
      // Not counted: out of attempts, or verified (or deleted) by a concurrent answer meanwhile.
      const current = await ctx.store.factors.getFactor(principal.accountId, applicationId, found.sid);
      if (current?.status !== 'unverified') return refused(unit, 'registration', { applicationId, subject: found.sid, reason: 'ended', detail: 'the factor was verified or deleted meanwhile' });
      unit.audit({ event: 'factor.passkey.verify.refused', applicationId, reason: `${found.sid} attempts` });
      return fail('FACTOR_ATTEMPTS_EXHAUSTED', `Factor ${found.sid} took ${FACTOR_VERIFICATION_ATTEMPTS} verification attempts: create a new one`);
    }
    const verified = await verifyRegistration(body, { challenge: found.registrationChallenge!, config: configOf(found) });
    if (!verified.ok) return refused(unit, 'registration', { applicationId, subject: found.sid, reason: verified.reason, detail: verified.detail });
    const { id, publicKey, signCount, transports } = verified.value;
    if (await ctx.store.factors.findFactorByCredential(applicationId, id)) {
      return refused(unit, 'registration', { applicationId, subject: found.sid, reason: 'credential', detail: 'this passkey is registered already' });
    }
    if (!await ctx.store.factors.verifyFactor(principal.accountId, found.sid, now, { credential: { credentialId: id, publicKey, signCount, transports } })) {
      return refused(unit, 'registration', { applicationId, subject: found.sid, reason: 'ended', detail: 'the factor was verified or deleted meanwhile' });
    }
    const entity = await ctx.store.factors.getEntityBySid(principal.accountId, found.entitySid);
    if (!entity) throw new Error(`the entity of factor ${found.sid} is gone`);
    unit.audit({ event: 'factor.passkey.verify', applicationId, reason: `${found.sid} uv=${verified.value.userVerified}` });
    return ok({ factor: { ...found, status: 'verified', registrationChallenge: null, credentialId: id, publicKey, signCount, transports, updatedAt: now }, entity });
  });
}

/** POST /Passkeys/Challenges: a pending challenge and its request options, for a factor, an entity's passkeys, or any discoverable one. */
export function createPasskeyChallenge(ctx: ServiceContext, principal: Principal, { service }: PasskeyScope, input: NewPasskeyChallengeInput): Promise<Result<PasskeyChallenge>> {
  const applicationId = service.application.id;
  return inUnitOfWork(ctx, principal, async (unit) => {
    const now = ctx.clock();
    const errors = new FieldErrors();
    if (input.identity !== undefined && !isIdentity(input.identity)) errors.add('identity', '8 to 64 letters and digits, in groups separated by single dashes');
    if (input.factorSid !== undefined && !isSidOf('YF', input.factorSid)) errors.add('factor_sid', 'YF + 32 hex');
    if (input.expiresAt !== undefined && (input.expiresAt <= now || input.expiresAt > now + CHALLENGE_MAX_TTL_MS)) errors.add('expiration_date', 'in the future, at most 60 minutes from now');
    if (!errors.empty) return invalidFields(errors);

    let entity: EntityRow | null = null;
    let factors: FactorRow[] = [];
    if (input.identity !== undefined) {
      entity = (await ctx.store.factors.getEntity(principal.accountId, applicationId, input.identity)) ?? null;
      if (!entity) return fail('ENTITY_NOT_FOUND', `Entity ${input.identity} was not found`);
      factors = (await ctx.store.factors.listFactors(principal.accountId, entity.sid)).filter((f) => f.factorType === 'passkeys');
    }
    if (input.factorSid !== undefined) {
      const factor = await ctx.store.factors.getFactor(principal.accountId, applicationId, input.factorSid);
      if (!factor || factor.factorType !== 'passkeys' || (entity !== null && factor.entitySid !== entity.sid)) return fail('FACTOR_NOT_FOUND', `Factor ${input.factorSid} was not found`);
      if (factor.status !== 'verified') return fail('FACTOR_UNVERIFIED', `Factor ${input.factorSid} is not verified: verify it with its registration first`);
      entity ??= (await ctx.store.factors.getEntityBySid(principal.accountId, factor.entitySid)) ?? null;
      factors = [factor];
    }
    const usable = factors.filter((f) => f.status === 'verified' && f.credentialId !== null);
    if (input.identity !== undefined && usable.length === 0) return fail('FACTOR_UNVERIFIED', `Entity ${input.identity} has no verified passkey`);
    // The options' relying party: the factor's (or the entity's first passkey's), else the Service's.
    let config: PasskeyConfig;
    if (usable[0]) config = configOf(usable[0]);
    else {
      const effective = effectivePasskeyConfig(service.settings.passkeys, undefined);
      if (!effective.ok) {
        return effective.problem === 'criteria'
          ? fail('PASSKEYS_CRITERIA_MISSING', `Authenticator criteria are missing: ${effective.fields.join(', ')} (set the Service's Passkeys.* settings)`)
          : fail('PASSKEYS_CRITERIA_MISSING', `The Service's Passkeys.* settings are incomplete: ${Object.entries(effective.errors).map(([k, v]) => `${k} ${v}`).join('; ')}`);
      }
      config = effective.config;
    }
    const nonce = newChallenge();
    const expiresAt = input.expiresAt ?? now + CHALLENGE_DEFAULT_TTL_MS;
    const challenge: ChallengeRow = {
      sid: newChallengeSid(), accountId: principal.accountId, applicationId, entitySid: entity?.sid ?? null, factorSid: input.factorSid ?? null,
      factorType: 'passkeys', status: 'pending', respondedReason: 'none', details: null, hiddenDetails: null, metadata: null, nonce,
      attempts: 0, expiresAt, respondedAt: null, createdAt: now, updatedAt: now,
    };
    await ctx.store.factors.insertChallenge(challenge);
    const publicKey = await authenticationOptions({
      rpId: config.relying_party.id, challenge: nonce, timeoutMs: expiresAt - now, userVerification: config.user_verification,
      allowCredentials: usable.filter((f) => configOf(f).relying_party.id === config.relying_party.id).map((f) => ({ id: f.credentialId!, transports: f.transports ?? [] })),
    });
    unit.audit({ event: 'challenge.passkey.create', applicationId, reason: `${challenge.sid} ${input.factorSid ?? (entity ? 'entity' : 'discoverable')}` });
    return ok({ challenge, entity, options: { publicKey } });
  });
}

/** POST /Passkeys/ApproveChallenge: the assertion of navigator.credentials.get() approves the challenge it answers. */
export function approvePasskeyChallenge(ctx: ServiceContext, principal: Principal, { service }: PasskeyScope, body: unknown): Promise<Result<{ challenge: ChallengeRow; entity: EntityRow }>> {
  const applicationId = service.application.id;
  return inUnitOfWork(ctx, principal, async (unit) => {
    const nonce = claimedChallenge(responseField(body, 'clientDataJSON'));
    const credentialId = assertedCredentialId(body);
    const errors = new FieldErrors();
    if (nonce === undefined) errors.add('response.clientDataJSON', 'is required: the base64url client data of navigator.credentials.get()');
    if (credentialId === undefined) errors.add('id', 'is required: the base64url credential id');
    if (!errors.empty || nonce === undefined || credentialId === undefined) return invalidFields(errors);
    const challenge = await ctx.store.factors.findChallengeByNonce(principal.accountId, applicationId, nonce);
    if (!challenge || challenge.factorType !== 'passkeys') {
      return refused(unit, 'assertion', { applicationId, subject: null, reason: 'unknown_challenge', detail: 'its challenge is not one this Service issued' });
    }
    const now = ctx.clock();
    const status = challengeStatusAt(challenge.status, challenge.expiresAt, now);
    if (status === 'expired') {
      unit.audit({ event: 'challenge.passkey.refused', applicationId, reason: `${challenge.sid} expired` });
      return fail('CHALLENGE_EXPIRED', `Challenge ${challenge.sid} has expired`);
    }
    if (status !== 'pending') {
      unit.audit({ event: 'challenge.passkey.refused', applicationId, reason: `${challenge.sid} ended` });
      return fail('CHALLENGE_ENDED', `Challenge ${challenge.sid} is ${status} already: a challenge is answered once`);
    }
    const factor = challenge.factorSid !== null
      ? await ctx.store.factors.getFactor(principal.accountId, applicationId, challenge.factorSid)
      : await ctx.store.factors.findFactorByCredential(applicationId, credentialId);
    if (!factor || factor.accountId !== principal.accountId || factor.factorType !== 'passkeys' || factor.status !== 'verified' || factor.credentialId === null || factor.publicKey === null
      || (challenge.entitySid !== null && factor.entitySid !== challenge.entitySid)) {
      return refused(unit, 'assertion', { applicationId, subject: challenge.sid, reason: 'credential', detail: 'the passkey is not a verified passkey of this challenge\'s user' });
    }
    // A discoverable credential names its user: it must be the factor's entity (Twilio's user handle: the entity SID).
    const userHandle = responseField(body, 'userHandle');
    if (typeof userHandle === 'string' && userHandle !== '' && userHandle !== Buffer.from(factor.entitySid, 'utf8').toString('base64url')) {
      return refused(unit, 'assertion', { applicationId, subject: challenge.sid, reason: 'credential', detail: 'the user handle is not the passkey\'s user' });
    }
    // Race gate: the answer is counted before it is checked.
    const counted = await ctx.store.factors.countChallengeAttempt(principal.accountId, challenge.sid, CHALLENGE_ATTEMPTS, now);
    if (!counted) {
      // Not counted: out of answers, or answered (or expired) meanwhile: a concurrent answer won.
      const current = await ctx.store.factors.getChallenge(principal.accountId, applicationId, challenge.sid);
      const status = current ? challengeStatusAt(current.status, current.expiresAt, now) : 'denied';
      const reason = status === 'pending' ? 'attempts' : status === 'expired' ? 'expired' : 'ended';
      unit.audit({ event: 'challenge.passkey.refused', applicationId, reason: `${challenge.sid} ${reason}` });
      if (reason === 'expired') return fail('CHALLENGE_EXPIRED', `Challenge ${challenge.sid} has expired`);
      if (reason === 'ended') return fail('CHALLENGE_ENDED', `Challenge ${challenge.sid} was answered meanwhile: a challenge is answered once`);
      return fail('CHALLENGE_ATTEMPTS_EXHAUSTED', `Challenge ${challenge.sid} took ${CHALLENGE_ATTEMPTS} answers: create a new one`);
    }
    const credential = { id: factor.credentialId, publicKey: factor.publicKey, signCount: factor.signCount ?? 0, transports: factor.transports ?? [] };
    const verified = await verifyAuthentication(body, { challenge: nonce, config: configOf(factor), credential });
    if (!verified.ok) return refused(unit, 'assertion', { applicationId, subject: challenge.sid, reason: verified.reason, detail: verified.detail });
    const outcome = await ctx.store.factors.approveChallenge(principal.accountId, challenge.sid, factor, { kind: 'passkey', signCount: verified.value.signCount }, now);
    if (outcome === 'replayed') return refused(unit, 'assertion', { applicationId, subject: challenge.sid, reason: 'counter', detail: 'the authenticator\'s sign counter did not move forward (another answer used it)' });
    if (outcome === 'ended') {
      unit.audit({ event: 'challenge.passkey.refused', applicationId, reason: `${challenge.sid} ended` });
      return fail('CHALLENGE_ENDED', `Challenge ${challenge.sid} was answered meanwhile: a challenge is answered once`);
    }
    const entity = await ctx.store.factors.getEntityBySid(principal.accountId, factor.entitySid);
    if (!entity) throw new Error(`the entity of factor ${factor.sid} is gone`);
    unit.audit({ event: 'challenge.passkey.approve', applicationId, reason: `${challenge.sid} ${factor.sid} count=${verified.value.signCount}` });
    return ok({ challenge: { ...challenge, status: 'approved', factorSid: factor.sid, entitySid: factor.entitySid, respondedAt: now, updatedAt: now, attempts: counted.attempts }, entity });
  });
}

/** Field errors as Twilio's 60306 (FACTOR_REQUEST_INVALID), as the other factor requests answer them. */
function invalidFields(errors: FieldErrors) {
  const validationErrors = errors.result().failure.validationErrors ?? {};
  const text = Object.entries(validationErrors).map(([field, messages]) => `Invalid parameter ${field}: ${messages.join(', ')}`).join('; ');
  return fail('FACTOR_REQUEST_INVALID', text, { validationErrors });
}

/** A string field of a credential's `response`, untrusted. */
function responseField(body: unknown, field: string): unknown {
  const response = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)['response'] : undefined;
  return response !== null && typeof response === 'object' ? (response as Record<string, unknown>)[field] : undefined;
}
