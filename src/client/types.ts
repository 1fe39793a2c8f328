// The wire shapes the client sends and receives. They are derived from the server's TypeBox schemas
// with type-only imports, so the client and the server cannot disagree about a field, and nothing of
// the server is loaded at run time (type-only imports are erased by the compiler).
import type { BudgetRequestSchema, BudgetResponseSchema, PriceListResponseSchema, SpendResponseSchema } from '../http/schemas/prices.js';
import type { Static } from 'typebox';
import type { ApplicationSenderRequestSchema, ApplicationSenderSchema, RouteExplainQuerySchema, RouteExplainResponseSchema, RoutesResponseSchema } from '../http/schemas/routes.js';
import type {
  AuditEntrySchema, AuditPageSchema, AutofillRequestSchema, AutofillResponseSchema, SecurityResponseSchema, SecuritySettingsRequestSchema, WorkflowSchema, TwilioAuthTokenSchema,
  RiskSettingsRequestSchema, RiskSettingsResponseSchema, RiskDecisionsResponseSchema, RiskSavingsResponseSchema, SafeListEntrySchema, SafeListResponseSchema,
  PreludeSettingsSchema, PreludeSettingsBodySchema, VonageApplicationSchema, VonageApplicationBodySchema,
  TemplateTextSchema, CreateTemplateTextRequestSchema, UpdateTemplateTextRequestSchema,
} from '../http/schemas/api-v1.js';
import type {
  CreatedWebhookResponseSchema, CreateWebhookRequestSchema, EmailTemplateRequestSchema, EmailTemplateResponseSchema, InboxMessageSchema,
  PinDetailsResponseSchema, UpdateWebhookRequestSchema, WebhookResponseSchema, CreateTestNumberRequestSchema, TestNumberSchema,
} from '../http/schemas/api-v1.js';
import type {
  ApiKeySchema, CreateApiKeyRequestSchema, CreatedApiKeySchema, MeResponseSchema, PinListResponseSchema, PinSummarySchema, StatsResponseSchema,
} from '../http/schemas/api-v1.js';
import type {
  ApplicationRequestSchema, ApplicationResponseSchema, CreateEmailMessageSchema, CreateSmsVoiceMessageSchema,
  EmailMessageResponseSchema, MessageResponseSchema, ResendPinRequestSchema, ResendPinViaEmailRequestSchema,
  SmsVoiceMessageResponseSchema, StartAuthenticationRequestSchema, StartAuthenticationResponseSchema,
  StartEmailAuthenticationRequestSchema, StartEmailAuthenticationResponseSchema, VerificationResponseSchema,
  VerifyPinRequestSchema, VerifyPinResponseSchema,
} from '../http/schemas/infobip.js';
import type {
  NewPasskeyBodySchema, NewPasskeyChallengeBodySchema, PasskeyChallengeSchema, PasskeyCredentialBodySchema, PasskeyFactorSchema, PasskeySettingsBodySchema, PasskeySettingsSchema,
} from '../http/schemas/passkeys.js';
import type {
  ChallengeSchema, CreateChallengeRequestSchema, CreateFactorRequestSchema, EntitySchema, FactorSchema, NewFactorSchema,
} from '../http/schemas/api-v1-factors.js';

// --- Infobip 2FA v2 (/2fa/2) ---

/** Create and update body of an application: only `name` is required. */
export type ApplicationRequest = Static<typeof ApplicationRequestSchema>;
/** An application with its full configuration (defaults filled in). */
export type Application = Static<typeof ApplicationResponseSchema>;

/** Create body of an SMS/voice message template (`messageText` must contain `{{pin}}`). */
export type SmsVoiceMessageRequest = Static<typeof CreateSmsVoiceMessageSchema>;
/** An SMS/voice message template as create and update answer it. */
export type SmsVoiceMessage = Static<typeof SmsVoiceMessageResponseSchema>;
/** Create body of an email message template (`emailTemplateId` names an /api/v1 email template). */
export type EmailMessageRequest = Static<typeof CreateEmailMessageSchema>;
/** An email message template as create and update answer it. */
export type EmailMessage = Static<typeof EmailMessageResponseSchema>;
/** Infobip's `Message`: either kind of template, as the GET operations answer it. */
export type Message = Static<typeof MessageResponseSchema>;

/** Send body for SMS and voice (`to`: international number, digits only). */
export type SendPinRequest = Static<typeof StartAuthenticationRequestSchema>;
/** Send and resend answer for SMS (`smsStatus`, `ncStatus`) and voice (`callStatus`). */
export type SendPinResponse = Static<typeof StartAuthenticationResponseSchema>;
/** Send body for email (`to`: an email address). */
export type SendEmailPinRequest = Static<typeof StartEmailAuthenticationRequestSchema>;
export type SendEmailPinResponse = Static<typeof StartEmailAuthenticationResponseSchema>;
/** Optional resend body for SMS and voice. */
export type ResendPinRequest = Static<typeof ResendPinRequestSchema>;
/** Optional resend body for email. */
export type ResendEmailPinRequest = Static<typeof ResendPinViaEmailRequestSchema>;

export type VerifyPinRequest = Static<typeof VerifyPinRequestSchema>;
/** Every counted attempt answers this, right or wrong: look at `verified` and `pinError`. */
export type VerifyPinResponse = Static<typeof VerifyPinResponseSchema>;
export type VerificationStatusResponse = Static<typeof VerificationResponseSchema>;
/** Filters of the verification status; booleans go on the wire as `true`/`false`. */
export interface VerificationStatusQuery {
  msisdn: string;
  verified?: boolean;
  sent?: boolean;
}

// --- the service's own API (/api/v1) ---

export type EmailTemplateRequest = Static<typeof EmailTemplateRequestSchema>;
export type EmailTemplate = Static<typeof EmailTemplateResponseSchema>;
export type InboxMessage = Static<typeof InboxMessageSchema>;
/** A PIN's state, delivery status and delivery history (never the PIN itself). */
export type PinDetails = Static<typeof PinDetailsResponseSchema>;
export interface InboxQuery {
  /** Only messages to this destination (phone digits or email address). */
  to?: string;
  /** At most this many messages, newest first (server default 50, max 1000). */
  limit?: number;
}

/** Create body of a webhook subscription: `url` (https://) and the `events` to receive; `secret` optional. */
export type WebhookRequest = Static<typeof CreateWebhookRequestSchema>;
/** Update body: any of url, events, enabled, secret; fields left out keep their values. */
export type WebhookUpdateRequest = Static<typeof UpdateWebhookRequestSchema>;
/** A webhook subscription (never its secret). */
export type Webhook = Static<typeof WebhookResponseSchema>;
/** The answer to create: the subscription and its signing secret, shown this once. */
export type CreatedWebhook = Static<typeof CreatedWebhookResponseSchema>;

/** A test number to add: a phone number or email address and its fixed code. */
export type TestNumberRequest = Static<typeof CreateTestNumberRequestSchema>;
/** A test number of the account (never its code). */
export type TestNumber = Static<typeof TestNumberSchema>;
export type Routes = Static<typeof RoutesResponseSchema>;
export type RouteExplanation = Static<typeof RouteExplainResponseSchema>;
export type RouteExplainQuery = Static<typeof RouteExplainQuerySchema>;
export type ApplicationSender = Static<typeof ApplicationSenderSchema>;
export type ApplicationSenderRequest = Static<typeof ApplicationSenderRequestSchema>;

/** The account's SID and the Auth Token that signs its Twilio Verify webhook events. */
export type TwilioAuthToken = Static<typeof TwilioAuthTokenSchema>;

/** The application the account's Prelude Verify calls use, and whether they may choose their code. */
export type PreludeSettings = Static<typeof PreludeSettingsSchema>;
export type PreludeSettingsRequest = Static<typeof PreludeSettingsBodySchema>;

/** A twofa application as a Vonage application: the public key its Vonage Verify JWTs are checked with, and where its callbacks go. */
export type VonageApplication = Static<typeof VonageApplicationSchema>;
export type VonageApplicationRequest = Static<typeof VonageApplicationBodySchema>;

/** Filters and paging of the PIN search; times are UNIX milliseconds. */
export interface PinListQuery {
  /** Destinations containing this text (a phone number's digits, or part of an email address). */
  to?: string;
  applicationId?: string;
  channel?: 'sms' | 'voice' | 'email' | 'whatsapp' | 'telegram';
  status?: 'pending' | 'verified' | 'expired' | 'locked';
  /** Created at or after. */
  since?: number;
  /** Created before. */
  until?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
  /** PINs per page (server default 25, max 100). */
  limit?: number;
}
/** One PIN in the search: state and delivery, never the PIN. */
export type PinSummary = Static<typeof PinSummarySchema>;
/** One page of the PIN search, newest first; `nextCursor` null on the last page. */
export type PinPage = Static<typeof PinListResponseSchema>;
/** The range and bucket of the statistics; times are UNIX milliseconds (default: the last seven days). */
export interface StatsQuery {
  from?: number;
  to?: number;
  bucket?: 'hour' | 'day';
}
/** Sends, deliveries and verifications over time, conversion, delivery latency and refusals. */
export type Stats = Static<typeof StatsResponseSchema>;
/** How to group the spend, and its range (UNIX ms or ISO 8601; default: this UTC month). */
export interface SpendQuery {
  by?: 'country' | 'transport' | 'application';
  from?: number | string;
  to?: number | string;
}
/** What the account's messages cost, per group and currency (docs/routing.md#prices). */
export type Spend = Static<typeof SpendResponseSchema>;
/** A budget: caps per UTC day and month in a currency, per country too, and what they spent (docs/routing.md#budgets). */
export type Budget = Static<typeof BudgetResponseSchema>;
export type BudgetRequest = Static<typeof BudgetRequestSchema>;
/** The price list in force on the node that answered. */
export type PriceList = Static<typeof PriceListResponseSchema>;
/** An API key of the account as listed: never the key itself. */
export type ApiKey = Static<typeof ApiKeySchema>;
export type ApiKeyRequest = Static<typeof CreateApiKeyRequestSchema>;
/** A new API key: `key` is shown in this answer only. */
export type CreatedApiKey = Static<typeof CreatedApiKeySchema>;
/** The calling key's account name and its own record (scopes). */
export type Me = Static<typeof MeResponseSchema>;

/** The error body of every failure, Infobip's envelope. */
export interface ApiErrorEnvelope {
  requestError: {
    serviceException: {
      messageId: string;
      text: string;
      validationErrors?: Record<string, string[]>;
    };
  };
}

// --- workflows (/api/v1) ---

/** An application's workflow: the channels a PIN goes out on in turn (docs/workflows.md). */
export type Workflow = Static<typeof WorkflowSchema>;

// --- anti-fraud guards and the audit log (/api/v1) ---

/** An application's anti-fraud settings, active breaker blocks and brute-force budget. */
export type ApplicationSecurity = Static<typeof SecurityResponseSchema>;
/** Fields to change; left out keep their values; "" removes a per-IP or per-prefix limit. */
export type ApplicationSecurityRequest = Static<typeof SecuritySettingsRequestSchema>;
export type AuditEntry = Static<typeof AuditEntrySchema>;
/** An application's risk mode (enforce, shadow, off) and block thresholds. */
export type ApplicationRisk = Static<typeof RiskSettingsResponseSchema>;
/** Fields to change; left out keep their values; countryBlockScores replaces the whole map. */
export type ApplicationRiskRequest = Static<typeof RiskSettingsRequestSchema>;
export type RiskDecisionPage = Static<typeof RiskDecisionsResponseSchema>;
/** Per currency, what blocks saved and shadow blocks would have saved (micro-units), and the decisions without a price. */
export type RiskSavings = Static<typeof RiskSavingsResponseSchema>;
export interface RiskSavingsQuery {
  applicationId?: string;
  /** UNIX time in milliseconds: decisions at or after. */
  since?: number;
  /** UNIX time in milliseconds: decisions before. */
  until?: number;
}
/** A number (phoneNumber) or a prefix (prefix) of the account's Safe List. */
export type SafeListEntry = Static<typeof SafeListEntrySchema>;
export type SafeList = Static<typeof SafeListResponseSchema>;
export interface RiskDecisionQuery {
  applicationId?: string;
  /** ISO 3166 alpha-2. */
  country?: string;
  decision?: 'allow' | 'block' | 'shadow_block';
  /** UNIX time in milliseconds: decisions at or after. */
  since?: number;
  /** UNIX time in milliseconds: decisions before. */
  until?: number;
  /** The `next` of the previous page. */
  cursor?: string;
  /** At most this many decisions (server default 100, max 1000). */
  limit?: number;
}
export type AuditPage = Static<typeof AuditPageSchema>;
export interface AuditQuery {
  applicationId?: string;
  pinId?: string;
  event?: string;
  /** The `next` of the previous page. */
  after?: number;
  /** At most this many entries (server default 100, max 1000). */
  limit?: number;
}

/** The SMS autofill lines of an SMS message. */
export type MessageAutofill = Static<typeof AutofillResponseSchema>;
/** What PUT .../autofill takes: a field left out is off. */
export type MessageAutofillRequest = Static<typeof AutofillRequestSchema>;
/** A locale text of an SMS/voice message, picked at delivery by the send's locale. */
export type MessageText = Static<typeof TemplateTextSchema>;
/** What POST .../texts takes. */
export type MessageTextRequest = Static<typeof CreateTemplateTextRequestSchema>;
/** What PUT .../texts/{textId} takes. */
export type MessageTextUpdate = Static<typeof UpdateTemplateTextRequestSchema>;

// --- Passkeys (/api/v1/applications/{appId}/passkeys..., docs/factors.md) ---

/** The relying party an application's passkeys are made for. */
export type PasskeySettings = Static<typeof PasskeySettingsSchema>;
export type PasskeySettingsRequest = Static<typeof PasskeySettingsBodySchema>;
/** A passkey factor; `options` (for navigator.credentials.create()) only when it is created. */
export type PasskeyFactor = Static<typeof PasskeyFactorSchema>;
export type NewPasskeyRequest = Static<typeof NewPasskeyBodySchema>;
/** A passkey challenge; `options` (for navigator.credentials.get()) only when it is created. */
export type PasskeyChallenge = Static<typeof PasskeyChallengeSchema>;
export type NewPasskeyChallengeRequest = Static<typeof NewPasskeyChallengeBodySchema>;
/** What navigator.credentials.create()/get() made, as its toJSON() writes it (e.g. @simplewebauthn/browser's answer). */
export type PasskeyCredentialJson = Static<typeof PasskeyCredentialBodySchema>;

// --- factors (/api/v1/applications/{appId}/entities/...) ---

/** A user of an application, by your id of them (`identity`). */
export type FactorEntity = Static<typeof EntitySchema>;
/** An authenticator of the user (a TOTP factor); never its secret. */
export type Factor = Static<typeof FactorSchema>;
/** A TOTP factor as made: with its Base32 `secret` and `otpauth://` `uri`, answered this once. */
export type NewFactor = Static<typeof NewFactorSchema>;
export type FactorRequest = Static<typeof CreateFactorRequestSchema>;
/** One sign-in asking a verified factor for a code. */
export type Challenge = Static<typeof ChallengeSchema>;
export type ChallengeRequest = Static<typeof CreateChallengeRequestSchema>;
