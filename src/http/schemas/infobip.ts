// The Infobip 2FA v2 wire shapes, declared once: request validation, response serialisation
// (which drops anything undeclared) and the OpenAPI document all come from these schemas.
import { Type, type Static } from 'typebox';
import { LANGUAGE_INPUTS, LANGUAGES, type Language } from '../../domain/languages.js';
import { PIN_TYPES, type PinType } from '../../domain/pin-generation.js';

/** An id of ours is 32 hex characters; the bound keeps an answer that echoes one small. */
const ResourceId = (description?: string) => Type.String({ maxLength: 64, ...(description !== undefined ? { description } : {}) });
/** A phone number or an email address (RFC 5321: at most 320 characters). */
const DESTINATION_MAX_LENGTH = 320;

const Placeholders = Type.Record(Type.String(), Type.String(), { description: 'Values for {{name}} placeholders of the message; keys without braces, never `pin`.' });

export const PinTypeSchema = Type.Unsafe<PinType>({ type: 'string', enum: [...PIN_TYPES], description: 'Alphabet of the generated PIN.' });
const LanguageInput = Type.Unsafe<string>({ type: 'string', enum: LANGUAGE_INPUTS, description: 'Language of the message text (for text-to-speech); both pt_pt and pt-pt spellings are accepted.' });
const LanguageOutput = Type.Unsafe<Language>({ type: 'string', enum: [...LANGUAGES] });

// --- applications ---

export const ApplicationConfigurationSchema = Type.Object({
  pinAttempts: Type.Optional(Type.Integer({ description: 'Number of PIN verification attempts. Default 10.' })),
  allowMultiplePinVerifications: Type.Optional(Type.Boolean({ description: 'Whether a verified PIN can be verified again. Default true.' })),
  pinTimeToLive: Type.Optional(Type.String({ description: 'Validity of a PIN, `{timeLength}{timeUnit}` with unit ms, s, m, h or d; at most one year. Default "15m".' })),
  verifyPinLimit: Type.Optional(Type.String({ description: 'Verification requests allowed per destination, `{attempts}/{timeLength}{timeUnit}`; window at most one day. Default "1/3s".' })),
  sendPinPerApplicationLimit: Type.Optional(Type.String({ description: 'PIN sends allowed per application, `{attempts}/{timeLength}{timeUnit}`; window at most one year. Default "10000/1d".' })),
  sendPinPerPhoneNumberLimit: Type.Optional(Type.String({ description: 'PIN sends allowed per destination, `{attempts}/{timeLength}{timeUnit}`; window at most one year. Default "3/1d".' })),
});

export const ApplicationRequestSchema = Type.Object({
  name: Type.String({ description: '2FA application name.' }),
  enabled: Type.Optional(Type.Boolean({ description: 'Whether PINs can be sent with the application. Default true.' })),
  configuration: Type.Optional(ApplicationConfigurationSchema),
});
export type ApplicationRequest = Static<typeof ApplicationRequestSchema>;

export const ApplicationResponseSchema = Type.Object({
  applicationId: Type.String(),
  name: Type.String(),
  configuration: Type.Object({
    pinAttempts: Type.Integer(),
    allowMultiplePinVerifications: Type.Boolean(),
    pinTimeToLive: Type.String(),
    verifyPinLimit: Type.String(),
    sendPinPerApplicationLimit: Type.String(),
    sendPinPerPhoneNumberLimit: Type.String(),
  }),
  enabled: Type.Boolean(),
}, { description: 'The 2FA application, with its full configuration.' });
export type ApplicationResponse = Static<typeof ApplicationResponseSchema>;

// --- message templates ---

const RegionalSchema = Type.Object({
  indiaDlt: Type.Optional(Type.Object({
    contentTemplateId: Type.Optional(Type.String({ maxLength: 30 })),
    principalEntityId: Type.String({ maxLength: 30 }),
    teleMarketerId: Type.Optional(Type.String({ maxLength: 255 })),
  })),
});

const smsVoiceFields = {
  messageText: Type.String({ description: 'Message text; must contain {{pin}}, may contain {{name}} placeholders filled at send time.' }),
  pinType: PinTypeSchema,
  pinLength: Type.Optional(Type.Integer({ description: 'PIN length, 4 to 16. Default 4.' })),
  senderId: Type.Optional(Type.String({ description: 'Sender shown to the recipient: up to 11 characters, or a number.' })),
  language: Type.Optional(LanguageInput),
  voiceName: Type.Optional(Type.String({ maxLength: 100 })),
  repeatDTMF: Type.Optional(Type.String({ pattern: '^[0-9*#]{1,8}$', description: 'DTMF keys that replay a voice message, e.g. "1#".' })),
  speechRate: Type.Optional(Type.Number({ description: 'Voice narration speed, 0.5 to 2.' })),
  regional: Type.Optional(RegionalSchema),
  pinPlaceholder: Type.Optional(Type.String({ description: 'Accepted for compatibility and ignored: the placeholder is always {{pin}}.' })),
};

export const CreateSmsVoiceMessageSchema = Type.Object(smsVoiceFields);
export const UpdateSmsVoiceMessageSchema = Type.Partial(Type.Object(smsVoiceFields));

const emailFields = {
  emailTemplateId: Type.Integer({ description: 'Id of an email template created with POST /api/v1/email-templates.' }),
  from: Type.Optional(Type.String({ maxLength: 320, description: 'Sender, e.g. company@example.com or "Jane Smith <jane@example.com>".' })),
  pinType: Type.Optional(PinTypeSchema),
  pinLength: Type.Optional(Type.Integer({ description: 'PIN length, 4 to 16. Default 4.' })),
  landingPageId: Type.Optional(Type.String({ maxLength: 255 })),
};
export const CreateEmailMessageSchema = Type.Object(emailFields);
export const UpdateEmailMessageSchema = Type.Partial(Type.Object(emailFields));

const messageCommon = {
  messageId: Type.String(),
  applicationId: Type.String(),
  pinLength: Type.Integer(),
  pinType: PinTypeSchema,
};

export const SmsVoiceMessageResponseSchema = Type.Object({
  ...messageCommon,
  pinPlaceholder: Type.String(),
  messageText: Type.String(),
  language: LanguageOutput,
  voiceName: Type.Optional(Type.String()),
  senderId: Type.Optional(Type.String()),
  repeatDTMF: Type.Optional(Type.String()),
  speechRate: Type.Optional(Type.Number()),
  regional: Type.Optional(RegionalSchema),
}, { description: 'The SMS/voice message template.' });

export const EmailMessageResponseSchema = Type.Object({
  ...messageCommon,
  from: Type.Optional(Type.String()),
  emailTemplateId: Type.Integer(),
  landingPageId: Type.Optional(Type.String()),
}, { description: 'The email message template.' });

/** Infobip's `Message`: what the template GETs answer for either kind. */
export const MessageResponseSchema = Type.Object({
  ...messageCommon,
  pinPlaceholder: Type.Optional(Type.String()),
  messageText: Type.Optional(Type.String()),
  language: Type.Optional(LanguageOutput),
  voiceName: Type.Optional(Type.String()),
  senderId: Type.Optional(Type.String()),
  repeatDTMF: Type.Optional(Type.String()),
  speechRate: Type.Optional(Type.Number()),
  regional: Type.Optional(RegionalSchema),
  from: Type.Optional(Type.String()),
  emailTemplateId: Type.Optional(Type.Integer()),
  landingPageId: Type.Optional(Type.String()),
}, { description: 'The message template: SMS/voice fields or email fields, by its kind.' });
export type MessageResponse = Static<typeof MessageResponseSchema>;

// --- sending ---

/** twofa's extension: the locale whose text of the template to send (docs/api.md, "Templates with languages"). */
const Locale = Type.String({
  minLength: 2, maxLength: 35,
  description: 'twofa\'s extension: picks the message template\'s text of this locale (a BCP-47 tag); without it, or without a text of it, the language of the number\'s country, else messageText.',
});

export const StartAuthenticationRequestSchema = Type.Object({
  applicationId: ResourceId(),
  messageId: ResourceId(),
  to: Type.String({ maxLength: DESTINATION_MAX_LENGTH, description: 'Phone number in international form, digits only, e.g. 41793026727.' }),
  from: Type.Optional(Type.String({ maxLength: 64, description: 'Overrides the template senderId.' })),
  placeholders: Type.Optional(Placeholders),
  trackDelivery: Type.Optional(Type.Boolean({ description: 'Answer an externalMessageId identifying the delivery.' })),
  locale: Type.Optional(Locale),
});

export const NcNeededQuerySchema = Type.Object({
  ncNeeded: Type.Optional(Type.String({ description: 'Number lookup before sending; anything but "false" counts as true (clients send "undefined").' })),
});

export const StartAuthenticationResponseSchema = Type.Object({
  pinId: Type.String(),
  to: Type.String(),
  ncStatus: Type.Optional(Type.String()),
  smsStatus: Type.Optional(Type.String()),
  callStatus: Type.Optional(Type.String()),
  externalMessageId: Type.Optional(Type.String()),
}, { description: 'The PIN was created (or found, for a resend) and its delivery queued; `pinId` identifies it for resend and verify.' });
export type StartAuthenticationResponse = Static<typeof StartAuthenticationResponseSchema>;

export const StartEmailAuthenticationRequestSchema = Type.Object({
  applicationId: ResourceId(),
  messageId: ResourceId(),
  to: Type.String({ maxLength: DESTINATION_MAX_LENGTH, description: 'Email address.' }),
  from: Type.Optional(Type.String({ maxLength: 320 })),
  placeholders: Type.Optional(Placeholders),
  landingPagePlaceholders: Type.Optional(Placeholders),
});

export const StartEmailAuthenticationResponseSchema = Type.Object({
  pinId: Type.String(),
  to: Type.String(),
  emailStatus: Type.Optional(Type.Object({ name: Type.String(), description: Type.String() })),
}, { description: 'The PIN was created (or found, for a resend) and its email queued; `pinId` identifies it for resend and verify.' });
export type StartEmailAuthenticationResponse = Static<typeof StartEmailAuthenticationResponseSchema>;

export const ResendPinRequestSchema = Type.Object({
  placeholders: Type.Optional(Placeholders),
  trackDelivery: Type.Optional(Type.Boolean()),
  locale: Type.Optional(Locale),
});

export const ResendPinViaEmailRequestSchema = Type.Object({
  placeholders: Type.Optional(Placeholders),
  landingPagePlaceholders: Type.Optional(Placeholders),
});

export const PinIdParamsSchema = Type.Object({ pinId: ResourceId() });
export const AppIdParamsSchema = Type.Object({ appId: ResourceId() });
export const AppMessageParamsSchema = Type.Object({ appId: ResourceId(), msgId: ResourceId() });

// --- verification ---

export const VerifyPinRequestSchema = Type.Object({ pin: Type.String({ description: 'The PIN as the user typed it.' }) });

export const VerifyPinResponseSchema = Type.Object({
  pinId: Type.String(),
  msisdn: Type.String({ description: 'Destination the PIN was sent to: phone number or email address.' }),
  verified: Type.Boolean(),
  attemptsRemaining: Type.Integer(),
  pinError: Type.Optional(Type.String({ description: 'WRONG_PIN, TTL_EXPIRED, NO_MORE_PIN_ATTEMPTS or ALREADY_VERIFIED.' })),
}, { description: 'The outcome of a counted verification attempt: `verified` and, on failure, `pinError`.' });

const BooleanQuery = Type.Union([Type.Literal('true'), Type.Literal('false')]);
export const VerificationStatusQuerySchema = Type.Object({
  msisdn: Type.String({ minLength: 1, maxLength: DESTINATION_MAX_LENGTH, description: 'Phone number or email address.' }),
  verified: Type.Optional(BooleanQuery),
  sent: Type.Optional(BooleanQuery),
});

export const VerificationResponseSchema = Type.Object({
  verifications: Type.Array(Type.Object({
    msisdn: Type.String(),
    verified: Type.Boolean(),
    verifiedAt: Type.Optional(Type.Integer({ description: 'UNIX time in milliseconds.' })),
    sentAt: Type.Optional(Type.Integer({ description: 'UNIX time in milliseconds at which the message was handed to the transport.' })),
  })),
}, { description: 'The newest PINs (up to 100) sent to the destination by the application, newest first.' });

/** `ncNeeded` defaults to true, and clients send the literal "undefined": only "false" turns it off. */
export function ncNeededFrom(query: { ncNeeded?: string }): boolean {
  return query.ncNeeded?.trim().toLowerCase() !== 'false';
}
