// The Twilio Verify v2 wire shapes: form-encoded PascalCase parameters in, snake_case JSON out with
// every field Twilio documents (null when empty). Used by the routes beside this file only.
import { Type, type TSchema } from 'typebox';

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const NullableString = nullable(Type.String());
const NullableBoolean = nullable(Type.Boolean());
const NullableInteger = nullable(Type.Integer());
const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601, UTC.' });

/** A form value as the official SDKs send a boolean. */
export const FormBoolean = Type.Union([Type.Literal('true'), Type.Literal('false')]);
export const FormInteger = Type.String({ pattern: '^-?[0-9]{1,9}$' });

const ServiceSid = Type.String({ pattern: '^VA[0-9a-fA-F]{32}$', description: 'The Service\'s SID: VA + 32 hex.' });
const VerificationSid = Type.String({ pattern: '^VE[0-9a-fA-F]{32}$', description: 'The Verification\'s SID: VE + 32 hex.' });
const RateLimitSid = Type.String({ pattern: '^RK[0-9a-fA-F]{32}$', description: 'The Rate Limit\'s SID: RK + 32 hex.' });
const BucketSid = Type.String({ pattern: '^BL[0-9a-fA-F]{32}$', description: 'The Bucket\'s SID: BL + 32 hex.' });
const AttemptSid = Type.String({ pattern: '^VL[0-9a-fA-F]{32}$', description: 'The Verification Attempt\'s SID: VL + 32 hex.' });
/** A SID in a body (34 characters), bounded so that an answer echoing one stays small; its form is the use case's to check. */
const BodySid = (description?: string) => Type.String({ maxLength: 64, ...(description !== undefined ? { description } : {}) });
/** E.164 or an email address (RFC 5321: at most 320 characters). */
const To = (description: string) => Type.String({ maxLength: 320, description });
export const AttemptParams = Type.Object({ Sid: AttemptSid });
export const ServiceSidParams = Type.Object({ ServiceSid });
export const RateLimitParams = Type.Object({ ServiceSid, Sid: RateLimitSid });
export const BucketsParams = Type.Object({ ServiceSid, RateLimitSid });
export const BucketParams = Type.Object({ ServiceSid, RateLimitSid, Sid: BucketSid });
export const SidParams = Type.Object({ Sid: ServiceSid });
export const ServiceAndSidParams = Type.Object({ ServiceSid, Sid: VerificationSid });

/** One settings parameter of a Service: its form name, where it lands in the settings, its type. */
type SettingKind = 'boolean' | 'string' | 'integer' | 'list';
export const SERVICE_SETTINGS: ReadonlyArray<readonly [string, readonly string[], SettingKind]> = [
  ['LookupEnabled', ['lookup_enabled'], 'boolean'],
  ['SkipSmsToLandlines', ['skip_sms_to_landlines'], 'boolean'],
  ['DtmfInputRequired', ['dtmf_input_required'], 'boolean'],
  ['TtsName', ['tts_name'], 'string'],
  ['Psd2Enabled', ['psd2_enabled'], 'boolean'],
  ['DoNotShareWarningEnabled', ['do_not_share_warning_enabled'], 'boolean'],
  ['CustomCodeEnabled', ['custom_code_enabled'], 'boolean'],
  ['DefaultTemplateSid', ['default_template_sid'], 'string'],
  ['VerifyEventSubscriptionEnabled', ['verify_event_subscription_enabled'], 'boolean'],
  ['Push.IncludeDate', ['push', 'include_date'], 'boolean'],
  ['Push.ApnCredentialSid', ['push', 'apn_credential_sid'], 'string'],
  ['Push.FcmCredentialSid', ['push', 'fcm_credential_sid'], 'string'],
  ['Totp.Issuer', ['totp', 'issuer'], 'string'],
  ['Totp.TimeStep', ['totp', 'time_step'], 'integer'],
  ['Totp.CodeLength', ['totp', 'code_length'], 'integer'],
  ['Totp.Skew', ['totp', 'skew'], 'integer'],
  ['Whatsapp.MsgServiceSid', ['whatsapp', 'msg_service_sid'], 'string'],
  ['Whatsapp.From', ['whatsapp', 'from'], 'string'],
  ['Passkeys.RelyingParty.Id', ['passkeys', 'relying_party', 'id'], 'string'],
  ['Passkeys.RelyingParty.Name', ['passkeys', 'relying_party', 'name'], 'string'],
  ['Passkeys.RelyingParty.Origins', ['passkeys', 'relying_party', 'origins'], 'list'],
  ['Passkeys.AuthenticatorAttachment', ['passkeys', 'authenticator_attachment'], 'string'],
  ['Passkeys.DiscoverableCredentials', ['passkeys', 'discoverable_credentials'], 'string'],
  ['Passkeys.UserVerification', ['passkeys', 'user_verification'], 'string'],
];

const formSchemaOf = (kind: SettingKind) => (kind === 'boolean' ? FormBoolean : kind === 'integer' ? FormInteger : Type.String());

function serviceBody(required: string[]) {
  const properties: Record<string, TSchema> = {
    FriendlyName: Type.String({ description: 'Shown in the messages: "Your {FriendlyName} verification code is: ..."; at most 32 characters.' }),
    CodeLength: Type.String({ pattern: '^[0-9]{1,2}$', description: 'Digits of the codes, 4 to 10 (default 6).' }),
  };
  for (const [name, , kind] of SERVICE_SETTINGS) properties[name] = formSchemaOf(kind);
  return Type.Object(Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, required.includes(k) ? v : Type.Optional(v)])), { additionalProperties: true });
}

export const CreateServiceBody = serviceBody(['FriendlyName']);
export const UpdateServiceBody = serviceBody([]);

export const ServiceSchema = Type.Object({
  sid: Type.String(),
  account_sid: Type.String(),
  friendly_name: Type.String(),
  code_length: Type.Integer(),
  lookup_enabled: NullableBoolean,
  psd2_enabled: NullableBoolean,
  skip_sms_to_landlines: NullableBoolean,
  dtmf_input_required: NullableBoolean,
  tts_name: NullableString,
  do_not_share_warning_enabled: NullableBoolean,
  custom_code_enabled: NullableBoolean,
  push: Type.Object({ include_date: NullableBoolean, apn_credential_sid: NullableString, fcm_credential_sid: NullableString }),
  totp: Type.Object({ issuer: NullableString, time_step: NullableInteger, code_length: NullableInteger, skew: NullableInteger }),
  default_template_sid: NullableString,
  whatsapp: Type.Object({ msg_service_sid: NullableString, from: NullableString }),
  passkeys: Type.Object({
    relying_party: Type.Object({ id: NullableString, name: NullableString, origins: nullable(Type.Array(Type.String())) }),
    authenticator_attachment: NullableString,
    discoverable_credentials: NullableString,
    user_verification: NullableString,
  }),
  verify_event_subscription_enabled: NullableBoolean,
  date_created: DateTime,
  date_updated: DateTime,
  url: Type.String(),
  links: Type.Object({
    verification_checks: Type.String(), verifications: Type.String(), rate_limits: Type.String(), messaging_configurations: Type.String(),
    entities: Type.String(), webhooks: Type.String(), access_tokens: Type.String(),
  }),
}, { title: 'TwilioService', description: 'The Service, with every field Twilio documents (null when it has no value).' });

export const PageQuery = Type.Object({
  PageSize: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'Records per page, 1 to 1000 (default 50).' })),
  Page: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description: 'The page index, from 0.' })),
  PageToken: Type.Optional(Type.String({ description: 'As issued in next_page_url / previous_page_url.' })),
}, { additionalProperties: true });

export const PageMetaSchema = Type.Object({
  page: Type.Integer(),
  page_size: Type.Integer(),
  first_page_url: Type.String(),
  previous_page_url: NullableString,
  url: Type.String(),
  next_page_url: NullableString,
  key: Type.String(),
});

export const ServicePageSchema = Type.Object({ services: Type.Array(ServiceSchema), meta: PageMetaSchema }, { title: 'TwilioServicePage', description: 'One page of Services; meta.next_page_url leads to the next one.' });

const Channel = Type.Union([Type.Literal('sms'), Type.Literal('call'), Type.Literal('email'), Type.Literal('whatsapp'), Type.Literal('sna')]);
const Status = Type.String({ description: 'pending, approved, canceled, max_attempts_reached, expired (or failed, deleted).' });

export const CreateVerificationBody = Type.Object({
  To: To('E.164 with a leading + for sms and call, an address for email.'),
  Channel: Type.String({ description: 'sms, call or email.' }),
  CustomFriendlyName: Type.Optional(Type.String({ description: 'Replaces the service\'s name in this message.' })),
  CustomMessage: Type.Optional(Type.String()),
  SendDigits: Type.Optional(Type.String()),
  Locale: Type.Optional(Type.String({ maxLength: 16 })),
  CustomCode: Type.Optional(Type.String()),
  Amount: Type.Optional(Type.String()),
  Payee: Type.Optional(Type.String()),
  RateLimits: Type.Optional(Type.String({ description: 'JSON object, as the SDKs send it.' })),
  ChannelConfiguration: Type.Optional(Type.String({ description: 'JSON object, as the SDKs send it.' })),
  AppHash: Type.Optional(Type.String({ maxLength: 64 })),
  TemplateSid: Type.Optional(BodySid()),
  TemplateCustomSubstitutions: Type.Optional(Type.String()),
  DeviceIp: Type.Optional(Type.String()),
  RiskCheck: Type.Optional(Type.String()),
  Tags: Type.Optional(Type.String()),
}, { additionalProperties: true });

export const UpdateVerificationBody = Type.Object({
  Status: Type.Union([Type.Literal('canceled'), Type.Literal('approved')]),
}, { additionalProperties: true });

/** The fields a Verification and a VerificationCheck answer share. */
const verificationFields = {
  sid: Type.String(),
  service_sid: Type.String(),
  account_sid: Type.String(),
  to: Type.String(),
  channel: Channel,
  status: Status,
  valid: Type.Boolean(),
  amount: NullableString,
  payee: NullableString,
  date_created: DateTime,
  date_updated: DateTime,
};

export const VerificationSchema = Type.Object({
  ...verificationFields,
  lookup: Type.Object({}, { additionalProperties: true, description: 'Empty: number lookup is not done.' }),
  send_code_attempts: Type.Array(Type.Object({ time: DateTime, channel: Type.String(), attempt_sid: Type.String() })),
  sna: nullable(Type.Object({ url: Type.String() })),
  url: Type.String(),
}, { title: 'TwilioVerification', description: 'The Verification, with every field Twilio documents.' });

export const VerificationCheckBody = Type.Object({
  Code: Type.String({ description: 'The code the user was sent.' }),
  To: Type.Optional(To('The To of the verification (this or VerificationSid).')),
  VerificationSid: Type.Optional(BodySid()),
  Amount: Type.Optional(Type.String()),
  Payee: Type.Optional(Type.String()),
}, { additionalProperties: true });

export const VerificationCheckSchema = Type.Object({
  ...verificationFields,
  sna_attempts_error_codes: Type.Array(Type.Object({ attempt_sid: Type.String(), code: Type.Integer() })),
}, { title: 'TwilioVerificationCheck', description: 'The outcome of the check: approved and valid, or pending and not valid.' });

export const CreateRateLimitBody = Type.Object({
  UniqueName: Type.String({ description: 'The name starts give values for, e.g. end_user_ip (letters, digits, _ . -; never personal data).' }),
  Description: Type.Optional(Type.String()),
}, { additionalProperties: true });

export const UpdateRateLimitBody = Type.Object({ Description: Type.Optional(Type.String()) }, { additionalProperties: true });

export const RateLimitSchema = Type.Object({
  sid: Type.String(),
  service_sid: Type.String(),
  account_sid: Type.String(),
  unique_name: Type.String(),
  description: NullableString,
  date_created: DateTime,
  date_updated: DateTime,
  url: Type.String(),
  links: Type.Object({ buckets: Type.String() }),
}, { title: 'TwilioRateLimit', description: 'A Rate Limit of the Service.' });

export const RateLimitPageSchema = Type.Object({ rate_limits: Type.Array(RateLimitSchema), meta: PageMetaSchema }, { title: 'TwilioRateLimitPage', description: 'One page of Rate Limits.' });

export const CreateBucketBody = Type.Object({
  Max: Type.String({ pattern: '^[0-9]{1,9}$', description: 'Starts allowed per value of the limit in the interval.' }),
  Interval: Type.String({ pattern: '^[0-9]{1,9}$', description: 'Seconds.' }),
}, { additionalProperties: true });

export const UpdateBucketBody = Type.Object({
  Max: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$' })),
  Interval: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$' })),
}, { additionalProperties: true });

export const BucketSchema = Type.Object({
  sid: Type.String(),
  rate_limit_sid: Type.String(),
  service_sid: Type.String(),
  account_sid: Type.String(),
  max: Type.Integer(),
  interval: Type.Integer(),
  date_created: DateTime,
  date_updated: DateTime,
  url: Type.String(),
}, { title: 'TwilioRateLimitBucket', description: 'A Bucket of a Rate Limit: at most max starts per value in interval seconds.' });

export const BucketPageSchema = Type.Object({ buckets: Type.Array(BucketSchema), meta: PageMetaSchema }, { title: 'TwilioRateLimitBucketPage', description: 'One page of Buckets.' });

const attemptFilters = {
  DateCreatedAfter: Type.Optional(Type.String({ description: 'ISO 8601: attempts created at or after.' })),
  DateCreatedBefore: Type.Optional(Type.String({ description: 'ISO 8601: attempts created at or before.' })),
  Country: Type.Optional(Type.String({ description: 'ISO 3166-1 alpha-2 of the phone number.' })),
  Channel: Type.Optional(Type.String({ description: 'sms, call or email.' })),
  VerifyServiceSid: Type.Optional(Type.String()),
};

export const AttemptListQuery = Type.Object({
  ...attemptFilters,
  'ChannelData.To': Type.Optional(Type.String({ description: 'The To of the verification.' })),
  VerificationSid: Type.Optional(Type.String()),
  Status: Type.Optional(Type.Union([Type.Literal('converted'), Type.Literal('unconverted')])),
  PageSize: PageQuery.properties.PageSize,
  Page: PageQuery.properties.Page,
  PageToken: PageQuery.properties.PageToken,
}, { additionalProperties: true });

export const AttemptSummaryQuery = Type.Object({
  ...attemptFilters,
  DestinationPrefix: Type.Optional(Type.String({ description: 'Digits the phone numbers start with (country code first).' })),
}, { additionalProperties: true });

export const AttemptSchema = Type.Object({
  sid: Type.String(),
  account_sid: Type.String(),
  service_sid: Type.String(),
  verification_sid: Type.String(),
  date_created: DateTime,
  date_updated: DateTime,
  conversion_status: Type.Union([Type.Literal('converted'), Type.Literal('unconverted')]),
  channel: Type.String(),
  price: nullable(Type.Object({ value: Type.String(), currency: Type.String() })),
  channel_data: Type.Object({
    verification_sid: Type.String(),
    to: Type.String(),
    status: Type.Union([Type.Literal('confirmed'), Type.Literal('unconfirmed'), Type.Literal('expired')]),
    message_status: Type.String({ description: 'The latest delivery status of the verification\'s messages.' }),
    error_code: NullableString,
    country: NullableString,
    code_length: NullableInteger,
    locale: NullableString,
    mcc: NullableString,
    mnc: NullableString,
    carrier: NullableString,
  }),
  url: Type.String(),
}, { title: 'TwilioVerificationAttempt', description: 'One send of a verification.' });

export const AttemptPageSchema = Type.Object({ attempts: Type.Array(AttemptSchema), meta: PageMetaSchema }, { title: 'TwilioVerificationAttemptPage', description: 'One page of the account\'s attempts, newest first.' });

export const AttemptSummarySchema = Type.Object({
  total_attempts: Type.Integer(),
  total_converted: Type.Integer(),
  total_unconverted: Type.Integer(),
  conversion_rate_percentage: Type.String(),
  url: Type.String(),
}, { title: 'TwilioVerificationAttemptsSummary', description: 'How many attempts match, how many of them converted.' });

export const TemplateListQuery = Type.Object({
  FriendlyName: Type.Optional(Type.String({ description: 'Only templates whose name contains this (case-insensitive).' })),
  PageSize: PageQuery.properties.PageSize,
  Page: PageQuery.properties.Page,
  PageToken: PageQuery.properties.PageToken,
}, { additionalProperties: true });

export const TemplateSchema = Type.Object({
  sid: Type.String(),
  account_sid: Type.String(),
  friendly_name: Type.String(),
  channels: Type.Array(Type.String()),
  translations: Type.Record(Type.String(), Type.Object({
    is_default_translation: Type.Boolean(),
    status: Type.String(),
    locale: Type.String(),
    text: Type.String({ description: '{{friendly_name}} is the service\'s name, {{code}} the code.' }),
    date_updated: DateTime,
    date_created: DateTime,
  })),
}, { title: 'TwilioVerificationTemplate', description: 'A message template (the built-in one or a custom one of the account) with its translations, by locale (the `Locale` of a start).' });

export const TemplatePageSchema = Type.Object({ templates: Type.Array(TemplateSchema), meta: PageMetaSchema }, { title: 'TwilioVerificationTemplatePage', description: 'One page of templates.' });

export const SafeListBody = Type.Object({ PhoneNumber: Type.String({ maxLength: 32, description: 'E.164 with a leading +.' }) }, { additionalProperties: true });
export const SafeListParams = Type.Object({ PhoneNumber: Type.String({ maxLength: 32, description: 'E.164 with a leading +.' }) });

export const SafeListSchema = Type.Object({
  sid: Type.String(),
  phone_number: Type.String(),
  url: Type.String(),
}, { title: 'TwilioSafeListNumber', description: 'A number on the account\'s Safe List: its sends pass the destination guards.' });

export const MessagingConfigurationParams = Type.Object({ ServiceSid, Country: Type.String({ maxLength: 3, description: 'ISO 3166-1 alpha-2, or all.' }) });
export const CreateMessagingConfigurationBody = Type.Object({
  Country: Type.String({ description: 'ISO 3166-1 alpha-2, or all for every country without its own.' }),
  MessagingServiceSid: BodySid('MG + 32 hex.'),
}, { additionalProperties: true });
export const UpdateMessagingConfigurationBody = Type.Object({ MessagingServiceSid: BodySid() }, { additionalProperties: true });

export const MessagingConfigurationSchema = Type.Object({
  account_sid: Type.String(),
  service_sid: Type.String(),
  country: Type.String(),
  messaging_service_sid: Type.String(),
  date_created: DateTime,
  date_updated: DateTime,
  url: Type.String(),
}, { title: 'TwilioMessagingConfiguration', description: 'The messaging service a Service names for a country (stored; twofa\'s transports choose the sender).' });

export const MessagingConfigurationPageSchema = Type.Object({ messaging_configurations: Type.Array(MessagingConfigurationSchema), meta: PageMetaSchema }, { title: 'TwilioMessagingConfigurationPage', description: 'One page of Messaging Configurations.' });

const WebhookSid = Type.String({ pattern: '^YW[0-9a-fA-F]{32}$', description: 'The Webhook\'s SID: YW + 32 hex.' });
export const WebhookParams = Type.Object({ ServiceSid, Sid: WebhookSid });
/** A repeated form key is an array; one value alone is a string. */
const EventTypes = Type.Union([Type.String(), Type.Array(Type.String())], {
  description: 'verification.started, verification.approved, verification.canceled, verification.expired, verification.max-attempts-reached, or * (Twilio\'s Push types factor.* and challenge.* are accepted and never sent).',
});
const webhookFields = {
  FriendlyName: Type.String({ description: 'A name for the webhook (no personal data), 1 to 64 characters.' }),
  EventTypes,
  WebhookUrl: Type.String({ description: 'Where the events are POSTed: https:// (http:// to this machine with TWOFA_WEBHOOK_ALLOW_PRIVATE).' }),
  Status: Type.String({ description: 'enabled (default) or disabled.' }),
  Version: Type.String({ description: 'v2 (default) or v1: stored and answered; the events are the same.' }),
};
export const CreateWebhookBody = Type.Object({
  FriendlyName: webhookFields.FriendlyName, EventTypes: webhookFields.EventTypes, WebhookUrl: webhookFields.WebhookUrl,
  Status: Type.Optional(webhookFields.Status), Version: Type.Optional(webhookFields.Version),
}, { additionalProperties: true });
export const UpdateWebhookBody = Type.Object(Object.fromEntries(Object.entries(webhookFields).map(([k, v]) => [k, Type.Optional(v)])), { additionalProperties: true });

export const WebhookSchema = Type.Object({
  sid: Type.String(),
  service_sid: Type.String(),
  account_sid: Type.String(),
  friendly_name: Type.String(),
  event_types: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
  version: Type.Union([Type.Literal('v1'), Type.Literal('v2')]),
  webhook_url: Type.String(),
  webhook_method: Type.Literal('POST'),
  date_created: DateTime,
  date_updated: DateTime,
  url: Type.String(),
}, { title: 'TwilioWebhook', description: 'A Verify Webhook: where a Service\'s verification events go, signed with the account\'s Auth Token (X-Twilio-Signature).' });

export const WebhookPageSchema = Type.Object({ webhooks: Type.Array(WebhookSchema), meta: PageMetaSchema }, { title: 'TwilioWebhookPage', description: 'One page of Webhooks.' });

/** What every route of the dialect declares: its dialect, its scope, and the form body it consumes. */
export const FORM = ['application/x-www-form-urlencoded'];
