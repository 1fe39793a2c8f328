// Prelude's answers from the use cases' outcomes (service/prelude-verifications.ts).
import type { Channel } from '../../../store/store.js';
import type { CheckOutcome, CreateOutcome } from '../../../service/prelude-verifications.js';

/** The engine's channels as Prelude names them; an email has none (its method says it). */
const PRELUDE_CHANNEL: Partial<Record<Channel, 'sms' | 'voice' | 'whatsapp' | 'telegram'>> = { sms: 'sms', voice: 'voice', whatsapp: 'whatsapp', telegram: 'telegram' };

export function toCreatedVerification(outcome: CreateOutcome, metadata: { correlation_id?: string } | undefined, requestId: string) {
  const channel = outcome.status === 'blocked' ? undefined : PRELUDE_CHANNEL[outcome.channel];
  return {
    id: outcome.id, status: outcome.status, method: outcome.method,
    ...(channel !== undefined ? { channels: [channel] } : {}),
    ...(outcome.status === 'blocked' || outcome.status === 'shadow_blocked' ? { reason: outcome.reason } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
    request_id: requestId,
  };
}

export function toVerificationCheck(outcome: CheckOutcome, requestId: string) {
  return {
    status: outcome.status, ...('id' in outcome ? { id: outcome.id } : {}),
    ...('correlationId' in outcome && outcome.correlationId !== undefined ? { metadata: { correlation_id: outcome.correlationId } } : {}),
    request_id: requestId,
  };
}
