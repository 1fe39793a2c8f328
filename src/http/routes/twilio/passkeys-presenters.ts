// Passkeys factors and challenges as Twilio answers them: a factor's `url` is its Entity's Factor
// resource (fetched there afterwards), a challenge's the Passkeys route that answered it, and the
// SIDs of a discoverable challenge's user are empty strings until its assertion names them.
import type { FastifyRequest } from 'fastify';
import { accountSid, serviceSid } from '../../../domain/twilio-sids.js';
import type { ChallengeRow, EntityRow, FactorRow } from '../../../store/factor-store.js';
import { challengeStatusAt } from '../../../domain/factors.js';
import { baseUrl, isoDate } from './presenters.js';

export function toPasskeysFactor(request: FastifyRequest, factor: FactorRow, entity: EntityRow) {
  const service = serviceSid(factor.applicationId);
  return {
    sid: factor.sid,
    account_sid: accountSid(factor.accountId),
    service_sid: service,
    entity_sid: entity.sid,
    identity: entity.identity,
    date_created: isoDate(factor.createdAt),
    date_updated: isoDate(factor.updatedAt),
    friendly_name: factor.friendlyName,
    status: factor.status,
    factor_type: 'passkeys' as const,
    config: factor.config as never,
    metadata: factor.metadata,
    url: `${baseUrl(request)}/Services/${service}/Entities/${encodeURIComponent(entity.identity)}/Factors/${factor.sid}`,
  };
}

export function toPasskeysChallenge(request: FastifyRequest, challenge: ChallengeRow, entity: EntityRow | null, route: 'Challenges' | 'ApproveChallenge', now: number, options: { publicKey: unknown } | null = null) {
  const service = serviceSid(challenge.applicationId);
  return {
    sid: challenge.sid,
    account_sid: accountSid(challenge.accountId),
    service_sid: service,
    entity_sid: challenge.entitySid ?? '',
    identity: entity?.identity ?? '',
    factor_sid: challenge.factorSid ?? '',
    date_created: isoDate(challenge.createdAt),
    date_updated: isoDate(challenge.updatedAt),
    date_responded: challenge.respondedAt === null ? null : isoDate(challenge.respondedAt),
    expiration_date: isoDate(challenge.expiresAt),
    status: challengeStatusAt(challenge.status, challenge.expiresAt, now),
    responded_reason: challenge.respondedReason,
    details: null,
    hidden_details: null,
    metadata: challenge.metadata,
    factor_type: 'passkeys' as const,
    url: `${baseUrl(request)}/Services/${service}/Passkeys/${route}`,
    links: null,
    options,
  };
}
