// Entities, Factors and Challenges as Twilio answers them: SIDs, ISO dates, absolute URLs back at the
// host that was asked. The passkeys routes present their factors and challenges with these too.
import type { FastifyRequest } from 'fastify';
import { accountSid, serviceSid } from '../../../../domain/twilio-sids.js';
import type { ChallengeStatus } from '../../../../domain/factors.js';
import type { ChallengeRow, EntityRow, FactorRow } from '../../../../store/factor-store.js';
import type { TwilioService } from '../../../../service/twilio-services.js';
import { baseUrl, isoDate, pageMeta, pageOf } from '../presenters.js';

export function entityUrl(request: FastifyRequest, service: TwilioService, identity: string): string {
  return `${baseUrl(request)}/Services/${serviceSid(service.application.id)}/Entities/${encodeURIComponent(identity)}`;
}

export function toEntity(request: FastifyRequest, { service, entity }: { service: TwilioService; entity: EntityRow }) {
  const url = entityUrl(request, service, entity.identity);
  return {
    sid: entity.sid, identity: entity.identity, account_sid: accountSid(entity.accountId), service_sid: serviceSid(service.application.id),
    date_created: isoDate(entity.createdAt), date_updated: isoDate(entity.updatedAt), url,
    links: { factors: `${url}/Factors`, new_factors: `${url}/Factors`, challenges: `${url}/Challenges` },
  };
}

export function toFactor(request: FastifyRequest, { service, entity, factor }: { service: TwilioService; entity: EntityRow; factor: FactorRow }) {
  return {
    sid: factor.sid, account_sid: accountSid(factor.accountId), service_sid: serviceSid(service.application.id), entity_sid: entity.sid,
    identity: entity.identity, date_created: isoDate(factor.createdAt), date_updated: isoDate(factor.updatedAt), friendly_name: factor.friendlyName,
    status: factor.status, factor_type: factor.factorType, config: factor.config, metadata: factor.metadata,
    url: `${entityUrl(request, service, entity.identity)}/Factors/${factor.sid}`,
  };
}

/** A factor as its create answers it: with its binding (a TOTP seed and URI) and options (passkeys). */
export function toNewFactor(request: FastifyRequest, scope: { service: TwilioService; entity: EntityRow; factor: FactorRow }, binding: unknown, options: unknown = null) {
  return { ...toFactor(request, scope), binding, options };
}

/** `url`: where the challenge is read (the passkeys routes answer theirs at their own path). */
export function toChallenge(request: FastifyRequest, { service, entity, challenge, status }: { service: TwilioService; entity: EntityRow | null; challenge: ChallengeRow; status: ChallengeStatus }, url?: string) {
  const own = entity ? `${entityUrl(request, service, entity.identity)}/Challenges/${challenge.sid}` : `${baseUrl(request)}/Services/${serviceSid(service.application.id)}/Challenges/${challenge.sid}`;
  return {
    sid: challenge.sid, account_sid: accountSid(challenge.accountId), service_sid: serviceSid(service.application.id),
    entity_sid: challenge.entitySid, identity: entity?.identity ?? null, factor_sid: challenge.factorSid,
    date_created: isoDate(challenge.createdAt), date_updated: isoDate(challenge.updatedAt),
    date_responded: challenge.respondedAt === null ? null : isoDate(challenge.respondedAt), expiration_date: isoDate(challenge.expiresAt),
    status, responded_reason: challenge.respondedReason, details: challenge.details, hidden_details: challenge.hiddenDetails,
    metadata: challenge.metadata, factor_type: challenge.factorType, url: url ?? own, links: { notifications: `${own}/Notifications` },
  };
}

/**
 * A Twilio page of rows the store read at the page's offset, one more than the page holds (so the
 * page knows whether a next one exists without counting).
 */
export function storePage<K extends string, T, R>(request: FastifyRequest, path: string, key: K, rows: readonly T[], present: (item: T) => R) {
  const { index, size } = pageOf(request.query as { PageSize?: string; Page?: string });
  const meta = pageMeta(request, path, key, index, size, rows.length > size);
  return { [key]: rows.slice(0, size).map(present), meta } as { [P in K]: R[] } & { meta: typeof meta };
}

/** The offset and the number of rows to read for the page the request asks for (see storePage). */
export function storeWindow(request: FastifyRequest): { offset: number; limit: number } {
  const { index, size } = pageOf(request.query as { PageSize?: string; Page?: string });
  return { offset: index * size, limit: size + 1 };
}
