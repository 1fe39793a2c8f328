// The webhooks of Prelude Verify v2 (shared/reference/prelude-verify-v2.md, section 8), POSTed to the
// `options.callback_url` of a verification's create: `{id, type, payload, created_at}`, where `type` is
// verify.authentication (the verification was created), verify.attempt (a message went out) or
// verify.delivery_status (the carrier's receipt). Prelude signs them with a per-application key whose
// signed bytes and distribution it does not publish: twofa sends them unsigned (docs/prelude-verify.md).
// The target is masked as every event of twofa's is: the receiver correlates by verification_id and
// metadata.correlation_id.
import { randomBytes } from 'node:crypto';
import type { DeliveryStatus } from './channels.js';
import { maskDestination } from './destinations.js';
import { preludeVerificationId } from './prelude-ids.js';

export const PRELUDE_WEBHOOK_TYPES = ['verify.authentication', 'verify.attempt', 'verify.delivery_status'] as const;
export type PreludeWebhookType = (typeof PRELUDE_WEBHOOK_TYPES)[number];

export function isPreludeWebhook(type: string): type is PreludeWebhookType {
  return (PRELUDE_WEBHOOK_TYPES as readonly string[]).includes(type);
}

/** Prelude's receipt statuses. */
export type PreludeDeliveryStatus = 'submitted' | 'in_transit' | 'delivered' | 'undeliverable' | 'unknown';

/** The engine's delivery status as Prelude's; undefined while nothing was sent yet. */
export function preludeDeliveryStatus(status: DeliveryStatus): PreludeDeliveryStatus | undefined {
  switch (status) {
    case 'sent': return 'submitted';
    case 'delivered': return 'delivered';
    case 'undelivered':
    case 'failed': return 'undeliverable';
    default: return undefined;
  }
}

/** What a webhook tells of its verification. */
export interface PreludeWebhookSubject {
  pinId: string;
  /** The engine's channel: `email` makes the target an email address. */
  channel: string;
  destination: string;
  correlationId: string | null;
}

/** An id in the shape of Prelude's (`evt_`, `att_` and 26 base32 characters), random. */
function randomId(prefix: string): string {
  return preludeVerificationId(randomBytes(16).toString('hex').toUpperCase()).replace(/^vrf_/, prefix);
}

/** The JSON body of one webhook, with a fresh event id (kept in the outbox: every attempt sends the same bytes). */
export function preludeWebhookBody(type: PreludeWebhookType, subject: PreludeWebhookSubject, at: number, details: { status?: PreludeDeliveryStatus } = {}): string {
  const target = subject.channel === 'email'
    ? { type: 'email_address', value: maskDestination(subject.destination) }
    : { type: 'phone_number', value: `+${maskDestination(subject.destination)}` };
  const payload: Record<string, unknown> = {
    verification_id: preludeVerificationId(subject.pinId), target, time: new Date(at).toISOString(),
    ...(type === 'verify.authentication' ? {} : { id: randomId('att_'), channel: subject.channel }),
    ...(details.status !== undefined ? { status: details.status } : {}),
    ...(subject.correlationId !== null ? { metadata: { correlation_id: subject.correlationId } } : {}),
  };
  return JSON.stringify({ id: randomId('evt_'), type, payload, created_at: new Date(at).toISOString() });
}
