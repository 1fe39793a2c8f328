// The events of Twilio Verify Webhooks (/v2/Services/{sid}/Webhooks) and how they are signed.
// Twilio's Webhooks resource carries Verify Push events only (factor.*, challenge.*); twofa has no
// Push factors, so those names are accepted (an SDK sending them must not fail) and never fire, and
// the verification lifecycle, which Twilio reports through Event Streams, is sent through this
// resource instead, under the names below. A body is form-encoded as Twilio's webhooks are, and
// signed as Twilio signs them: X-Twilio-Signature, HMAC-SHA1 keyed with the account's Auth Token.
import { createHmac } from 'node:crypto';

export const TWILIO_VERIFICATION_EVENTS = [
  'verification.started', 'verification.approved', 'verification.canceled', 'verification.expired', 'verification.max-attempts-reached',
] as const;
export type TwilioVerificationEvent = (typeof TWILIO_VERIFICATION_EVENTS)[number];

/** Twilio's own event types of the resource (Verify Push); accepted, never sent by twofa. */
export const TWILIO_PUSH_EVENTS = ['factor.created', 'factor.verified', 'factor.deleted', 'challenge.approved', 'challenge.denied'] as const;

export const ALL_TWILIO_EVENTS = '*';

const SELECTORS: readonly string[] = [ALL_TWILIO_EVENTS, ...TWILIO_VERIFICATION_EVENTS, ...TWILIO_PUSH_EVENTS];

export function isTwilioEventSelector(value: string): boolean {
  return SELECTORS.includes(value);
}

/** Whether an event of the event outbox is one of these (the others are twofa's pin.* events). */
export function isTwilioVerificationEvent(type: string): type is TwilioVerificationEvent {
  return (TWILIO_VERIFICATION_EVENTS as readonly string[]).includes(type);
}

export function twilioSubscribesTo(selectors: readonly string[], type: TwilioVerificationEvent): boolean {
  return selectors.includes(type) || selectors.includes(ALL_TWILIO_EVENTS);
}

/**
 * The parameters of a verification event. `to` is masked as twofa's own events mask it (the
 * receiver correlates by verification_sid): an event lands in the receiver's logs and queues.
 */
export interface TwilioEventParams {
  uuid: string;
  type: TwilioVerificationEvent;
  account_sid: string;
  service_sid: string;
  verification_sid: string;
  channel: string;
  to: string;
  /** The verification's status after the event: pending, approved, canceled, expired, max_attempts_reached. */
  status: string;
  /** ISO 8601, when the event happened. */
  date_created: string;
}

/** The form body, parameters in a fixed order so that the stored body is sent byte for byte on every attempt. */
export function twilioEventBody(params: TwilioEventParams): string {
  return new URLSearchParams(Object.entries(params)).toString();
}

/**
 * X-Twilio-Signature of a form POST: base64(HMAC-SHA1(authToken, url + each parameter's name and
 * value, sorted by name)), as Twilio computes it and its SDKs' validateRequest check it.
 */
export function twilioSignature(authToken: string, url: string, body: string): string {
  const params = [...new URLSearchParams(body)].sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  const data = url + params.map(([name, value]) => name + value).join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}
