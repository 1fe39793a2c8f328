// Twilio Verify's `totp` factors and their challenges. What users rely on:
// - the seed comes from `crypto` (or Binding.Secret), is answered in Base32 with its otpauth:// URI
//   only by the create, and is kept encrypted under the keyring, never logged;
// - a factor is verified by a code of its seed (AuthPayload); a wrong code is an answer (200,
//   still unverified), the 6th attempt after five wrong ones is refused (429 60310): the factor
//   must be made again;
// - a challenge is approved by a code; a wrong code leaves it pending, the fifth denies it, and any
//   answer after that is refused (429 60308). Across challenges a factor takes FACTOR_CODE_CHECKS
//   codes per window (429 60308 with Retry-After), so opening challenge after challenge does not
//   lift the bound on guesses;
// - a code is accepted once: each acceptance raises the factor's last time step, in the transaction
//   that approves, and a code of that step or an earlier one is refused afterwards (it answers as a
//   wrong code does);
// - codes within `skew` steps of now are accepted, skew 0 to 2 (Twilio's bound).
// Every attempt is counted before its code is compared (the store's conditional UPDATEs), so no
// concurrency exceeds the bounds; every creation, verification, answer and refusal is audited.
import { fail, ok, type Result } from '../domain/errors.js';
import {
  CHALLENGE_ATTEMPTS, CHALLENGE_DEFAULT_TTL_MS, CHALLENGE_MAX_TTL_MS, FACTOR_CODE_CHECKS, FACTOR_VERIFICATION_ATTEMPTS, FRIENDLY_NAME_MAX,
  METADATA_MAX, challengeStatusAt, newChallengeSid, newFactorSid, type ChallengeStatus,
} from '../domain/factors.js';
import {
  base32Decode, matchingStep, newTotpSecret, otpauthUri, TOTP_ALGORITHMS, TOTP_DEFAULTS, TOTP_LIMITS, TOTP_SECRET_MIN_BYTES,
  type TotpAlgorithm, type TotpConfig,
} from '../domain/totp.js';
import type { ChallengeRow, FactorRow } from '../store/factor-store.js';
import type { Principal, ServiceContext } from './context.js';
import { challengeNotFound, ensureEntity, factorNotFound, findChallenge, findEntity, findFactor, invalidParameter, type ChallengeScope, type FactorScope } from './factors.js';
import { getService, type TwilioService } from './twilio-services.js';
import { inUnitOfWork, type UnitOfWork } from './unit-of-work.js';

/** Config.* as given (strings of a form, or numbers); each absent one falls back to the Service's Totp.*, then Twilio's default. */
export interface TotpConfigInput {
  alg?: string;
  timeStep?: number;
  codeLength?: number;
  skew?: number;
}

export interface CreateTotpFactorInput {
  friendlyName: string;
  config: TotpConfigInput;
  /** Binding.Secret: a Base32 seed of the caller's; generated when absent. */
  secret?: string;
  /** Metadata: a JSON object of strings. */
  metadata?: string;
}

/** The factor as made, with what only its create answers: the seed and its otpauth:// URI. */
export interface NewTotpFactor extends FactorScope {
  binding: { secret: string; uri: string };
}

function configErrors(input: TotpConfigInput): Result<null> {
  if (input.alg !== undefined && !(TOTP_ALGORITHMS as readonly string[]).includes(input.alg)) return invalidParameter('Config.Alg', `must be one of ${TOTP_ALGORITHMS.join(', ')}`);
  for (const [field, value, range] of [
    ['Config.TimeStep', input.timeStep, TOTP_LIMITS.time_step], ['Config.CodeLength', input.codeLength, TOTP_LIMITS.code_length], ['Config.Skew', input.skew, TOTP_LIMITS.skew],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < range.min || value > range.max)) return invalidParameter(field, `must be a whole number from ${range.min} to ${range.max}`);
  }
  return ok(null);
}

/** The configuration a new factor gets: what the request says, else the Service's Totp.*, else Twilio's defaults. */
function effectiveConfig(service: TwilioService, input: TotpConfigInput): TotpConfig {
  const totp = service.settings.totp;
  return {
    alg: (input.alg as TotpAlgorithm | undefined) ?? TOTP_DEFAULTS.alg,
    time_step: input.timeStep ?? totp.time_step ?? TOTP_DEFAULTS.time_step,
    code_length: input.codeLength ?? totp.code_length ?? TOTP_DEFAULTS.code_length,
    skew: input.skew ?? totp.skew ?? TOTP_DEFAULTS.skew,
  };
}

/** Metadata or HiddenDetails: a JSON object of string values, at most METADATA_MAX characters. */
export function parseStringMap(field: string, text: string | undefined): Result<Record<string, string> | null | undefined> {
  if (text === undefined) return ok(undefined);
  if (text.length > METADATA_MAX) return invalidParameter(field, `must be at most ${METADATA_MAX} characters`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalidParameter(field, 'must be a JSON object');
  }
  if (value === null) return ok(null);
  if (typeof value !== 'object' || Array.isArray(value) || Object.values(value as object).some((v) => typeof v !== 'string')) {
    return invalidParameter(field, 'must be a JSON object of string values');
  }
  return ok(value as Record<string, string>);
}

function friendlyNameError(name: string): Result<null> {
  if (name.trim() === '' || name.length > FRIENDLY_NAME_MAX) return invalidParameter('FriendlyName', `must be 1 to ${FRIENDLY_NAME_MAX} characters`);
  return ok(null);
}

const configOf = (factor: FactorRow) => factor.config as unknown as TotpConfig;

/** The factor's seed, or undefined when no configured TWOFA_SECRET opens it (a secret dropped from the keyring). */
function seedOf(ctx: ServiceContext, factor: FactorRow): Buffer | undefined {
  const secret = factor.secretCiphertext === null ? null : ctx.keyring.decryptFactorSecret(factor.sid, factor.secretCiphertext);
  return secret === null ? undefined : base32Decode(secret);
}

/** POST .../Entities/{identity}/Factors with FactorType=totp: the entity is made if the Service has none of that identity. */
export async function createTotpFactor(ctx: ServiceContext, principal: Principal, serviceSid: string, identity: string, input: CreateTotpFactorInput): Promise<Result<NewTotpFactor>> {
  const found = await getService(ctx, principal, serviceSid);
  if (!found.ok) return found;
  const service = found.value;
  const checks = [friendlyNameError(input.friendlyName), configErrors(input.config)];
  for (const check of checks) if (!check.ok) return check;
  const metadata = parseStringMap('Metadata', input.metadata);
  if (!metadata.ok) return metadata;
  let secret = newTotpSecret();
  if (input.secret !== undefined) {
    const bytes = base32Decode(input.secret);
    if (!bytes || bytes.length < TOTP_SECRET_MIN_BYTES || bytes.length > 128) return invalidParameter('Binding.Secret', `must be a Base32 seed of ${TOTP_SECRET_MIN_BYTES * 8} to 1024 bits`);
    secret = input.secret.replace(/=+$/, '').toUpperCase();
  }
  return inUnitOfWork(ctx, principal, async (unit) => {
    const entity = await ensureEntity(unit, service, identity);
    if (!entity.ok) return entity;
    const now = ctx.clock();
    const config = effectiveConfig(service, input.config);
    const sid = newFactorSid();
    const factor: FactorRow = {
      sid, accountId: principal.accountId, applicationId: service.application.id, entitySid: entity.value.entity.sid, factorType: 'totp',
      status: 'unverified', friendlyName: input.friendlyName, config: { ...config }, metadata: metadata.value ?? null,
      secretCiphertext: ctx.keyring.encryptFactorSecret(sid, secret), registrationChallenge: null, credentialId: null, publicKey: null,
      signCount: null, transports: null, lastUsedStep: null, verificationAttempts: 0, createdAt: now, updatedAt: now,
    };
    await ctx.store.factors.insertFactor(factor);
    unit.audit({ event: 'factor.create', applicationId: service.application.id, reason: `totp ${sid}${input.secret !== undefined ? ' (seed given)' : ''}` });
    const issuer = service.settings.totp.issuer ?? service.application.name;
    return ok({ service, entity: entity.value.entity, factor, binding: { secret, uri: otpauthUri(secret, issuer, input.friendlyName, config) } });
  });
}

export interface UpdateFactorInput {
  /** AuthPayload: the code that verifies an unverified factor. */
  authPayload?: string;
  friendlyName?: string;
  config: TotpConfigInput;
  metadata?: string;
}

/**
 * POST .../Factors/{sid}: renames or reconfigures the factor and, with AuthPayload, verifies an
 * unverified one. A wrong code answers the factor still unverified; after five, 429 60310.
 */
export async function updateTotpFactor(ctx: ServiceContext, principal: Principal, serviceSid: string, identity: string, factorSid: string, input: UpdateFactorInput): Promise<Result<FactorScope>> {
  const found = await findFactor(ctx, principal, serviceSid, identity, factorSid);
  if (!found.ok) return found;
  if (found.value.factor.factorType !== 'totp') return invalidParameter('FactorType', 'only totp factors are updated here; passkeys are verified through /Passkeys/VerifyFactor');
  const checks = [input.friendlyName === undefined ? ok(null) : friendlyNameError(input.friendlyName), configErrors(input.config)];
  for (const check of checks) if (!check.ok) return check;
  const metadata = parseStringMap('Metadata', input.metadata);
  if (!metadata.ok) return metadata;
  if (input.authPayload !== undefined && !/^[0-9]{3,8}$/.test(input.authPayload)) return invalidParameter('AuthPayload', 'must be the code: 3 to 8 digits');
  return inUnitOfWork(ctx, principal, async (unit) => {
    let scope = found.value;
    const changed = input.friendlyName !== undefined || metadata.value !== undefined || Object.values(input.config).some((v) => v !== undefined);
    if (changed) {
      const current = configOf(scope.factor);
      const config: TotpConfig = {
        alg: (input.config.alg as TotpAlgorithm | undefined) ?? current.alg, time_step: input.config.timeStep ?? current.time_step,
        code_length: input.config.codeLength ?? current.code_length, skew: input.config.skew ?? current.skew,
      };
      const fields = { friendlyName: input.friendlyName ?? scope.factor.friendlyName, config: { ...config }, metadata: metadata.value === undefined ? scope.factor.metadata : metadata.value };
      if (!await ctx.store.factors.updateFactor(principal.accountId, factorSid, fields, ctx.clock())) return factorNotFound(factorSid);
      unit.audit({ event: 'factor.update', applicationId: scope.service.application.id, reason: factorSid });
    }
    if (input.authPayload !== undefined && scope.factor.status === 'unverified') {
      const verified = await verifyWithCode(unit, scope, input.authPayload);
      if (!verified.ok) return verified;
    }
    const now = await ctx.store.factors.getFactor(principal.accountId, scope.service.application.id, factorSid);
    if (!now) return factorNotFound(factorSid);
    scope = { ...scope, factor: now };
    return ok(scope);
  });
}

/** One counted attempt of a factor's verification; the factor is verified when the code is its seed's, at a step not used before. */
async function verifyWithCode(unit: UnitOfWork, scope: FactorScope, code: string): Promise<Result<null>> {
  const { ctx, principal } = unit;
  const applicationId = scope.service.application.id;
  const sid = scope.factor.sid;
  // Race gate: the attempt is counted before the code is compared; none beyond the fifth.
  const counted = await ctx.store.factors.countFactorVerification(principal.accountId, sid, FACTOR_VERIFICATION_ATTEMPTS, ctx.clock());
  if (!counted) {
    const now = await ctx.store.factors.getFactor(principal.accountId, applicationId, sid);
    if (now?.status === 'verified') return ok(null);
    unit.audit({ event: 'factor.verify', applicationId, reason: `refused ${sid}: ${FACTOR_VERIFICATION_ATTEMPTS} wrong codes` });
    return fail('FACTOR_ATTEMPTS_EXHAUSTED', `Max verification attempts reached for factor ${sid}`);
  }
  const seed = seedOf(ctx, counted);
  const at = ctx.clock();
  const step = seed === undefined ? undefined : matchingStep(seed, code, at, configOf(counted));
  // A code of a step at or before the last accepted one is refused by the conditional UPDATE (replay).
  const verified = step !== undefined && await ctx.store.factors.verifyFactor(principal.accountId, sid, at, { use: { kind: 'totp', step } });
  const left = FACTOR_VERIFICATION_ATTEMPTS - counted.verificationAttempts;
  unit.audit({ event: 'factor.verify', applicationId, reason: verified ? `verified ${sid}` : `wrong code ${sid} (${left} attempts left)${seed === undefined ? ', seed unreadable' : ''}` });
  return ok(null);
}

export interface CreateChallengeInput {
  factorSid: string;
  /** ISO 8601; default now + 5 minutes, at most now + 60. */
  expirationDate?: string;
  detailsMessage?: string;
  /** Details.Fields: each a JSON {label, value}. */
  detailsFields?: string[];
  hiddenDetails?: string;
  /** The code, answered at once. */
  authPayload?: string;
}

/** A challenge with the factor it asks. */
export interface ChallengeAnswer extends ChallengeScope {
  factor: FactorRow;
}

function parseDetails(input: CreateChallengeInput, now: number): Result<Record<string, unknown> | null> {
  if (input.detailsMessage === undefined && (input.detailsFields ?? []).length === 0) return ok(null);
  if (input.detailsMessage !== undefined && input.detailsMessage.length > 256) return invalidParameter('Details.Message', 'must be at most 256 characters');
  const fields: Array<{ label: string; value: string }> = [];
  for (const text of input.detailsFields ?? []) {
    let field: unknown;
    try {
      field = JSON.parse(text);
    } catch {
      field = undefined;
    }
    const f = field as { label?: unknown; value?: unknown } | undefined;
    if (typeof f?.label !== 'string' || typeof f.value !== 'string' || f.label.length > 36 || f.value.length > 128) {
      return invalidParameter('Details.Fields', 'each must be a JSON {"label": at most 36 characters, "value": at most 128}');
    }
    fields.push({ label: f.label, value: f.value });
  }
  if (fields.length > 20) return invalidParameter('Details.Fields', 'at most 20 fields');
  return ok({ message: input.detailsMessage ?? null, date: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'), fields });
}

function expiryOf(text: string | undefined, now: number): Result<number> {
  if (text === undefined) return ok(now + CHALLENGE_DEFAULT_TTL_MS);
  const at = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(at) || at <= now || at > now + CHALLENGE_MAX_TTL_MS) return invalidParameter('ExpirationDate', 'must be an ISO 8601 date-time after now and at most 60 minutes from now');
  return ok(at);
}

/** POST .../Challenges: a challenge of a verified totp factor, answered at once when AuthPayload carries the code. */
export async function createTotpChallenge(ctx: ServiceContext, principal: Principal, serviceSid: string, identity: string, input: CreateChallengeInput): Promise<Result<ChallengeAnswer>> {
  const found = await findEntity(ctx, principal, serviceSid, identity);
  if (!found.ok) return found;
  const { service, entity } = found.value;
  if (!/^YF[0-9a-f]{32}$/.test(input.factorSid)) return invalidParameter('FactorSid', 'must be YF followed by 32 hex digits');
  const factor = await ctx.store.factors.getFactor(principal.accountId, service.application.id, input.factorSid);
  if (factor?.entitySid !== entity.sid) return factorNotFound(input.factorSid);
  if (factor.factorType !== 'totp') return invalidParameter('FactorSid', 'challenges of passkeys factors are made through /Passkeys/Challenges');
  if (factor.status !== 'verified') return fail('FACTOR_UNVERIFIED', `Factor ${factor.sid} is not verified`);
  const now = ctx.clock();
  const expiresAt = expiryOf(input.expirationDate, now);
  if (!expiresAt.ok) return expiresAt;
  const details = parseDetails(input, now);
  if (!details.ok) return details;
  const hidden = parseStringMap('HiddenDetails', input.hiddenDetails);
  if (!hidden.ok) return hidden;
  if (input.authPayload !== undefined && !/^.{3,8}$/.test(input.authPayload)) return invalidParameter('AuthPayload', 'must be 3 to 8 characters');
  return inUnitOfWork(ctx, principal, async (unit) => {
    const challenge: ChallengeRow = {
      sid: newChallengeSid(), accountId: principal.accountId, applicationId: service.application.id, entitySid: entity.sid, factorSid: factor.sid,
      factorType: 'totp', status: 'pending', respondedReason: 'none', details: details.value, hiddenDetails: hidden.value ?? null, metadata: null,
      nonce: null, attempts: 0, expiresAt: expiresAt.value, respondedAt: null, createdAt: now, updatedAt: now,
    };
    await ctx.store.factors.insertChallenge(challenge);
    unit.audit({ event: 'factor.challenge.create', applicationId: service.application.id, reason: `${challenge.sid} of ${factor.sid}` });
    const scope: ChallengeAnswer = { service, entity, factor, challenge, status: 'pending' };
    return input.authPayload === undefined ? ok(scope) : answerChallenge(unit, scope, input.authPayload);
  });
}

export interface UpdateChallengeInput {
  authPayload: string;
  metadata?: string;
}

/** POST .../Challenges/{sid}: answers a pending totp challenge with a code. */
export async function updateTotpChallenge(ctx: ServiceContext, principal: Principal, serviceSid: string, identity: string, challengeSid: string, input: UpdateChallengeInput): Promise<Result<ChallengeAnswer>> {
  const found = await findChallenge(ctx, principal, serviceSid, identity, challengeSid);
  if (!found.ok) return found;
  const metadata = parseStringMap('Metadata', input.metadata);
  if (!metadata.ok) return metadata;
  const { challenge } = found.value;
  if (challenge.factorType !== 'totp' || challenge.factorSid === null) return invalidParameter('AuthPayload', 'passkeys challenges are approved through /Passkeys/ApproveChallenge');
  const factor = await ctx.store.factors.getFactor(principal.accountId, found.value.service.application.id, challenge.factorSid);
  if (!factor) return factorNotFound(challenge.factorSid);
  if (!/^.{3,8}$/.test(input.authPayload)) return invalidParameter('AuthPayload', 'must be 3 to 8 characters');
  const code = input.authPayload;
  return inUnitOfWork(ctx, principal, (unit) => answerChallenge(unit, { ...found.value, factor }, code, metadata.value));
}

/** Why an answer to a challenge was not counted: expired, ended, or out of attempts. */
function notCounted(challenge: ChallengeRow | undefined, status: ChallengeStatus, sid: string) {
  if (!challenge) return challengeNotFound(sid);
  if (status === 'expired') return fail('CHALLENGE_EXPIRED', `Challenge ${sid} has expired`);
  if (challenge.attempts >= CHALLENGE_ATTEMPTS && challenge.status !== 'approved') return fail('CHALLENGE_ATTEMPTS_EXHAUSTED', `Max verification attempts reached for challenge ${sid}`);
  return fail('CHALLENGE_ENDED', `Challenge ${sid} is ${status}: it takes no more answers`);
}

/**
 * One answer to a challenge: the factor's window of code checks (brute force across challenges),
 * then the challenge's own count, both before the code is compared; then the approval, which raises
 * the factor's last step in its transaction (a replayed code is refused there, as a wrong one).
 */
async function answerChallenge(unit: UnitOfWork, scope: ChallengeAnswer, code: string, metadata?: Record<string, string> | null): Promise<Result<ChallengeAnswer>> {
  const { ctx, principal } = unit;
  const { challenge, factor } = scope;
  const applicationId = scope.service.application.id;
  const reread = async (): Promise<ChallengeAnswer> => {
    const now = await ctx.store.factors.getChallenge(principal.accountId, applicationId, challenge.sid) ?? challenge;
    return { ...scope, challenge: now, status: challengeStatusAt(now.status, now.expiresAt, ctx.clock()) };
  };
  if (scope.status !== 'pending') return notCounted(challenge, scope.status, challenge.sid);
  const window = await ctx.store.consumeRateLimits([{ key: `factor-codes:${factor.sid}`, limit: FACTOR_CODE_CHECKS.limit, windowMs: FACTOR_CODE_CHECKS.windowMs }], ctx.clock());
  if (!window.allowed) {
    unit.audit({ event: 'factor.challenge.refused', applicationId, reason: `${challenge.sid} of ${factor.sid}: ${FACTOR_CODE_CHECKS.limit} codes within ${FACTOR_CODE_CHECKS.windowMs / 60_000} min` });
    return fail('FACTOR_CODE_LIMIT', `Too many codes checked against factor ${factor.sid}; retry in ${Math.ceil(window.retryAfterMs / 1000)} s`, { retryAfterMs: window.retryAfterMs });
  }
  // Race gate: the answer is counted before the code is compared; none beyond the fifth.
  const counted = await ctx.store.factors.countChallengeAttempt(principal.accountId, challenge.sid, CHALLENGE_ATTEMPTS, ctx.clock());
  if (!counted) {
    const now = await reread();
    if (now.challenge.attempts >= CHALLENGE_ATTEMPTS) unit.audit({ event: 'factor.challenge.refused', applicationId, reason: `${challenge.sid} of ${factor.sid}: ${CHALLENGE_ATTEMPTS} wrong codes` });
    return notCounted(now.challenge, now.status, challenge.sid);
  }
  const seed = seedOf(ctx, factor);
  const at = ctx.clock();
  const step = seed === undefined ? undefined : matchingStep(seed, code, at, configOf(factor));
  const outcome = step === undefined ? 'wrong' : await ctx.store.factors.approveChallenge(principal.accountId, challenge.sid, factor, { kind: 'totp', step }, at, metadata);
  if (outcome === 'approved') {
    unit.audit({ event: 'factor.challenge.approve', applicationId, reason: `${challenge.sid} of ${factor.sid}` });
    return ok(await reread());
  }
  if (outcome === 'ended') {
    const now = await reread();
    return notCounted(now.challenge, now.status, challenge.sid);
  }
  const last = counted.attempts >= CHALLENGE_ATTEMPTS;
  // The fifth wrong code ends the challenge: denied, and every later answer is refused (429 60308).
  if (last) await ctx.store.factors.denyChallenge(principal.accountId, challenge.sid, ctx.clock());
  const why = outcome === 'replayed' ? 'code already used' : seed === undefined ? 'seed unreadable' : 'wrong code';
  unit.audit({ event: last ? 'factor.challenge.deny' : 'factor.challenge.wrong_code', applicationId, reason: `${challenge.sid} of ${factor.sid}: ${why} (${CHALLENGE_ATTEMPTS - counted.attempts} attempts left)` });
  return ok(await reread());
}
