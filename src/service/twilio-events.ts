// The drafts of Twilio Verify's verification events (domain/twilio-events.ts), queued by the store in
// the transaction of the change they report: by the Twilio dialect's own use cases, and by the
// engine's verify (verify-pin.ts), which approves a Twilio-started PIN whichever dialect checked it.
import { maskDestination } from '../domain/destinations.js';
import type { TwilioVerificationEvent } from '../domain/twilio-events.js';
import { accountSid, serviceSid, verificationSid } from '../domain/twilio-sids.js';
import type { Channel, PinRecord } from '../store/store.js';
import type { TwilioEventDraft } from '../store/twilio-store.js';

export const TWILIO_CHANNELS = ['sms', 'call', 'email', 'whatsapp'] as const;
export type TwilioChannel = typeof TWILIO_CHANNELS[number];

// Twilio has no Telegram channel: a PIN sent by Telegram through Infobip's API shows as the phone code it is.
export const TWILIO_CHANNEL: Record<Channel, TwilioChannel> = { sms: 'sms', voice: 'call', email: 'email', whatsapp: 'whatsapp', telegram: 'sms' };

/** A verification event for the Service's webhooks (queued by the store with the change it reports). */
export function twilioVerificationEvent(type: TwilioVerificationEvent, pin: Pick<PinRecord, 'id' | 'accountId' | 'applicationId' | 'destination'>, channel: string, status: string, now: number): TwilioEventDraft {
  return {
    applicationId: pin.applicationId, pinId: pin.id,
    params: {
      type, account_sid: accountSid(pin.accountId), service_sid: serviceSid(pin.applicationId), verification_sid: verificationSid(pin.id),
      channel, to: maskDestination(pin.destination), status, date_created: new Date(now).toISOString(),
    },
  };
}
