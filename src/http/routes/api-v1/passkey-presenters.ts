// Passkey factors and challenges as /api/v1 answers them (schemas/passkeys.ts): camelCase, times in
// milliseconds, the relying party settings as the application keeps them.
import { challengeStatusAt } from '../../../domain/factors.js';
import type { PasskeyConfig } from '../../../domain/passkeys.js';
import type { TwilioService } from '../../../service/twilio-services.js';
import type { ChallengeRow, EntityRow, FactorRow } from '../../../store/factor-store.js';

export function toPasskeySettings(service: TwilioService) {
  const p = service.settings.passkeys;
  return {
    applicationId: service.application.id,
    relyingParty: { id: p.relying_party.id, name: p.relying_party.name, origins: p.relying_party.origins },
    authenticatorAttachment: p.authenticator_attachment, discoverableCredentials: p.discoverable_credentials, userVerification: p.user_verification,
  };
}

export function toPasskeyFactor(factor: FactorRow, entity: EntityRow, options?: { publicKey: unknown }) {
  const config = factor.config as unknown as PasskeyConfig;
  return {
    factorSid: factor.sid, entitySid: entity.sid, identity: entity.identity, friendlyName: factor.friendlyName, status: factor.status,
    config: {
      relyingParty: config.relying_party, authenticatorAttachment: config.authenticator_attachment,
      discoverableCredentials: config.discoverable_credentials, userVerification: config.user_verification,
    },
    createdAt: factor.createdAt, updatedAt: factor.updatedAt, ...(options !== undefined ? { options } : {}),
  };
}

export function toPasskeyChallenge(challenge: ChallengeRow, entity: EntityRow | null, now: number, options?: { publicKey: unknown }) {
  return {
    challengeSid: challenge.sid, entitySid: challenge.entitySid, identity: entity?.identity ?? null, factorSid: challenge.factorSid,
    status: challengeStatusAt(challenge.status, challenge.expiresAt, now), expiresAt: challenge.expiresAt, respondedAt: challenge.respondedAt,
    createdAt: challenge.createdAt, ...(options !== undefined ? { options } : {}),
  };
}
