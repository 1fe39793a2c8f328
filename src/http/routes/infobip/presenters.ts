// Engine records as Infobip's 2FA v2 answers: exactly Infobip's fields (the response schemas in
// schemas/infobip.ts drop anything undeclared, and these add nothing the schema lacks), optional
// fields left out rather than null, as Infobip's clients expect. Every Infobip-shaped body is made
// here; the WhatsApp and Telegram sends (routes/messaging/) answer in the SMS send's shape.
import type { Static } from 'typebox';
import type { Language } from '../../../domain/languages.js';
import type { VerifyOutcome } from '../../../service/verify-pin.js';
import type { ApplicationRecord, EmailMessageTemplateRecord, MessageTemplateRecord, PinRecord, SmsVoiceTemplateRecord } from '../../../store/store.js';
import type {
  ApplicationResponse, EmailMessageResponseSchema, MessageResponse, SmsVoiceMessageResponseSchema,
  StartAuthenticationResponse, StartEmailAuthenticationResponse, VerificationResponseSchema, VerifyPinResponseSchema,
} from '../../schemas/infobip.js';

// --- applications ---

export function toApplicationResponse(app: ApplicationRecord): ApplicationResponse {
  return { applicationId: app.id, name: app.name, configuration: { ...app.configuration }, enabled: app.enabled };
}

// --- message templates ---

function optional<K extends string, V>(key: K, value: V | null): Partial<Record<K, V>> {
  return value === null ? {} : ({ [key]: value } as Record<K, V>);
}

export function toSmsVoiceMessageResponse(t: SmsVoiceTemplateRecord): Static<typeof SmsVoiceMessageResponseSchema> {
  return {
    messageId: t.id, applicationId: t.applicationId, pinPlaceholder: '{{pin}}', messageText: t.messageText, pinLength: t.pinLength,
    pinType: t.pinType, language: t.language as Language,
    ...optional('voiceName', t.voiceName), ...optional('senderId', t.senderId), ...optional('repeatDTMF', t.repeatDtmf),
    ...optional('speechRate', t.speechRate), ...optional('regional', t.regional),
  };
}

export function toEmailMessageResponse(t: EmailMessageTemplateRecord): Static<typeof EmailMessageResponseSchema> {
  return {
    messageId: t.id, applicationId: t.applicationId, pinLength: t.pinLength, pinType: t.pinType,
    ...optional('from', t.from), emailTemplateId: t.emailTemplateId, ...optional('landingPageId', t.landingPageId),
  };
}

export function toMessageResponse(t: MessageTemplateRecord): MessageResponse {
  return t.kind === 'email' ? toEmailMessageResponse(t) : toSmsVoiceMessageResponse(t);
}

// --- sends and verifications ---

/** What a send or resend answers with, whatever its channel. */
export interface SendOutcomeView {
  pinId: string;
  to: string;
  queued: boolean;
  deliveryId: string | undefined;
  /** Sent to a test number: nothing is queued, and the client is answered as for a message sent. */
  testNumber?: boolean;
}

/** Whether the answer says the message went out: queued for a transport, or taken by a test number (which delivers nothing, by design). */
const accepted = (outcome: SendOutcomeView) => outcome.queued || outcome.testNumber === true;

function tracking(outcome: SendOutcomeView, trackDelivery: boolean | undefined) {
  return trackDelivery && outcome.deliveryId ? { externalMessageId: outcome.deliveryId } : {};
}

export function toSmsSendResponse(outcome: SendOutcomeView, options: { ncNeeded: boolean; trackDelivery?: boolean }): StartAuthenticationResponse {
  return {
    pinId: outcome.pinId, to: outcome.to,
    // No number-lookup provider is configured, so a requested lookup reports exactly that.
    ...(options.ncNeeded ? { ncStatus: 'NC_NOT_CONFIGURED' } : {}),
    smsStatus: accepted(outcome) ? 'MESSAGE_SENT' : 'MESSAGE_NOT_SENT',
    ...tracking(outcome, options.trackDelivery),
  };
}

export function toVoiceSendResponse(outcome: SendOutcomeView, options: { trackDelivery?: boolean }): StartAuthenticationResponse {
  return { pinId: outcome.pinId, to: outcome.to, callStatus: accepted(outcome) ? 'PENDING_ACCEPTED' : 'MESSAGE_NOT_SENT', ...tracking(outcome, options.trackDelivery) };
}

export function toEmailSendResponse(outcome: SendOutcomeView): StartEmailAuthenticationResponse {
  return {
    pinId: outcome.pinId, to: outcome.to,
    emailStatus: accepted(outcome)
      ? { name: 'PENDING_ACCEPTED', description: 'Message accepted, pending for delivery.' }
      : { name: 'MESSAGE_NOT_SENT', description: 'Message not sent: no email transport is configured.' },
  };
}

/** GET /2fa/2/applications/{appId}/verifications: the times only where they happened. */
export function toVerificationsResponse(rows: readonly Pick<PinRecord, 'destination' | 'verifiedAt' | 'sentAt'>[]): Static<typeof VerificationResponseSchema> {
  return {
    verifications: rows.map((r) => ({
      msisdn: r.destination, verified: r.verifiedAt !== null,
      ...(r.verifiedAt !== null ? { verifiedAt: r.verifiedAt } : {}), ...(r.sentAt !== null ? { sentAt: r.sentAt } : {}),
    })),
  };
}

/** POST /2fa/2/pin/{pinId}/verify: every counted outcome is a 200; `pinError` only when not verified. */
export function toVerifyResponse(outcome: VerifyOutcome): Static<typeof VerifyPinResponseSchema> {
  return {
    pinId: outcome.pinId, msisdn: outcome.destination, verified: outcome.verified, attemptsRemaining: outcome.attemptsRemaining,
    ...(outcome.pinError !== undefined ? { pinError: outcome.pinError } : {}),
  };
}
