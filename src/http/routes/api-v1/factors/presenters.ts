// The factor model as twofa's own API answers it, and the application an /api/v1 path names: the
// same use cases as Twilio's Entities routes, the application standing where Twilio puts the Service.
import { fail, type Result } from '../../../../domain/errors.js';
import { CHALLENGE_ATTEMPTS } from '../../../../domain/factors.js';
import { serviceSid } from '../../../../domain/twilio-sids.js';
import type { ChallengeScope, EntityScope, FactorScope } from '../../../../service/factors.js';

/** The Twilio Service SID of an application id (anything but 32 hex names no application). */
export function serviceOf(appId: string): string {
  return /^[0-9A-Fa-f]{32}$/.test(appId) ? serviceSid(appId) : 'VA-none';
}

/** A Service not found is, in this API, the application not found. */
export function inApplication<T>(appId: string, result: Result<T>): Result<T> {
  if (!result.ok && result.failure.name === 'RESOURCE_NOT_FOUND') return fail('APPLICATION_NOT_FOUND', `Application ${appId} not found`);
  return result;
}

export function toEntity({ service, entity }: EntityScope) {
  return { sid: entity.sid, identity: entity.identity, applicationId: service.application.id, createdAt: entity.createdAt };
}

export function toFactor({ service, entity, factor }: FactorScope) {
  return {
    sid: factor.sid, identity: entity.identity, entitySid: entity.sid, applicationId: service.application.id, type: factor.factorType, status: factor.status,
    friendlyName: factor.friendlyName, config: factor.config, metadata: factor.metadata, verificationAttempts: factor.verificationAttempts,
    createdAt: factor.createdAt, updatedAt: factor.updatedAt,
  };
}

export function toChallenge({ service, entity, challenge, status }: ChallengeScope) {
  return {
    sid: challenge.sid, identity: entity.identity, factorSid: challenge.factorSid, applicationId: service.application.id, type: challenge.factorType, status,
    attemptsLeft: status === 'pending' ? Math.max(0, CHALLENGE_ATTEMPTS - challenge.attempts) : 0,
    expiresAt: challenge.expiresAt, respondedAt: challenge.respondedAt, createdAt: challenge.createdAt,
  };
}
