// Passkeys challenges as Twilio's /Passkeys routes answer them (its OpenAPI examples): `url` the route
// that answered, no links, and the SIDs of a discoverable challenge's user empty strings until its
// assertion names them. (Passkeys factors are presented as every factor is: factors/presenters.ts.)
import type { FastifyRequest } from 'fastify';
import { accountSid, serviceSid } from '../../../domain/twilio-sids.js';
import type { ChallengeRow, EntityRow } from '../../../store/factor-store.js';
import { challengeStatusAt } from '../../../domain/factors.js';
import { baseUrl, isoDate } from './presenters.js';

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
