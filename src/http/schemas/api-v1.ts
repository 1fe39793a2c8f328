// Shapes of the service's own API under /api/v1 (never mixed into Infobip-shaped bodies).
import { Type } from 'typebox';
import { PIN_EVENT_SELECTORS, type PinEventSelector } from '../../domain/pin-events.js';
import { MessagePriceSchema } from './prices.js';

export const EmailTemplateRequestSchema = Type.Object({
  name: Type.String({ maxLength: 255, description: 'Name to tell templates apart.' }),
  from: Type.Optional(Type.Union([Type.String({ maxLength: 320 }), Type.Null()], { description: 'Default sender, e.g. "Acme <no-reply@acme.example>".' })),
  subject: Type.String({ description: 'Subject line; may contain {{pin}} and {{name}} placeholders.' }),
  html: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'HTML body; placeholder values are HTML-escaped.' })),
  text: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Plain-text body.' })),
});

export const EmailTemplateResponseSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  from: Type.Union([Type.String(), Type.Null()]),
  subject: Type.String(),
  html: Type.Union([Type.String(), Type.Null()]),
  text: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.Integer({ description: 'UNIX time in milliseconds.' }),
  updatedAt: Type.Integer({ description: 'UNIX time in milliseconds.' }),
}, { description: 'The email template.' });

// Path parameters arrive as text and types are never coerced, so the id is checked as digits.
export const EmailTemplateIdParamsSchema = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,14}$', description: 'Email template id.' }) });

export const InboxQuerySchema = Type.Object({
  to: Type.Optional(Type.String({ maxLength: 320, description: 'Only messages to this destination.' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'At most this many messages (default 50, max 1000).' })),
});

export const InboxMessageSchema = Type.Object({
  id: Type.String(),
  channel: Type.String(),
  to: Type.String(),
  from: Type.Optional(Type.String()),
  subject: Type.Optional(Type.String()),
  text: Type.Optional(Type.String()),
  html: Type.Optional(Type.String()),
  pinId: Type.String(),
  applicationId: Type.String(),
  messageId: Type.String(),
  receivedAt: Type.Integer(),
});

export const PinIdParamsSchema = Type.Object({ pinId: Type.String({ maxLength: 64 }) });

const DeliveryEventSchema = Type.Object({
  at: Type.Integer({ description: 'UNIX time in milliseconds.' }),
  event: Type.String({ description: 'queued, sent, delivered, undelivered, retried, failed or cancelled.' }),
  channel: Type.Union([Type.String(), Type.Null()]),
  transport: Type.Union([Type.String(), Type.Null()]),
  providerMessageId: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
});

const RiskSignalSchema = Type.Object({
  name: Type.String({ description: 'number_type, country_conversion, prefix_conversion, prefix_velocity, sequential_numbers, client_address_velocity or new_country.' }),
  weight: Type.Number({ description: 'Points the signal adds at full strength.' }),
  points: Type.Number({ description: 'Points it added to this score.' }),
  value: Type.String({ description: 'What was measured.' }),
});

export const RiskDecisionSchema = Type.Object({
  id: Type.String(),
  applicationId: Type.String(),
  pinId: Type.Union([Type.String(), Type.Null()], { description: 'The PIN sent; null for a blocked send (nothing was sent).' }),
  kind: Type.Union([Type.Literal('send'), Type.Literal('resend')]),
  createdAt: Type.Integer({ description: 'UNIX time in milliseconds.' }),
  destination: Type.String(),
  country: Type.Union([Type.String(), Type.Null()]),
  score: Type.Integer({ description: '0 to 100.' }),
  threshold: Type.Integer({ description: 'The score at which the application blocks sends to this country.' }),
  decision: Type.String({ description: 'allow, block (refused, nothing sent) or shadow_block (sent: the mode is shadow).' }),
  mode: Type.String({ description: 'enforce or shadow.' }),
  safeListed: Type.Boolean({ description: 'The number is on the Safe List: never blocked by its score.' }),
  signals: Type.Array(RiskSignalSchema),
  price: Type.Union([Type.Object({
    amountMicros: Type.Integer({ description: 'Millionths of the currency\'s unit.' }),
    currency: Type.String(),
  }), Type.Null()], {
    description: 'A block\'s estimated price of the message refused (what the block saved), a shadow block\'s of the message sent anyway (what a block would have saved), '
      + 'from the price list\'s line for its planned transport x its SMS parts; null for an allowed send, an email, or without a known price.',
  }),
}, { description: 'A risk decision with the signals that made its score.' });

export const RiskDecisionsQuerySchema = Type.Object({
  applicationId: Type.Optional(Type.String({ maxLength: 64 })),
  country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
  decision: Type.Optional(Type.Union([Type.Literal('allow'), Type.Literal('block'), Type.Literal('shadow_block')])),
  since: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'Decisions made at or after this UNIX time in milliseconds.' })),
  until: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'Decisions made before this UNIX time in milliseconds.' })),
  cursor: Type.Optional(Type.String({ maxLength: 100, description: 'The `next` of the previous page.' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'At most this many decisions (default 100, max 1000).' })),
});

export const RiskDecisionsResponseSchema = Type.Object({
  decisions: Type.Array(RiskDecisionSchema, { description: 'Newest first: every block and shadow block, one allowed send in 20.' }),
  next: Type.Union([Type.String(), Type.Null()], { description: 'The cursor of the next page; null on the last.' }),
}, { description: 'One page of recorded risk decisions.' });

export const RiskSavingsQuerySchema = Type.Object({
  applicationId: Type.Optional(Type.String({ maxLength: 64 })),
  since: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'Decisions made at or after this UNIX time in milliseconds.' })),
  until: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'Decisions made before this UNIX time in milliseconds.' })),
});

export const RiskSavingsResponseSchema = Type.Object({
  currencies: Type.Array(Type.Object({
    currency: Type.String(),
    blockedMicros: Type.Integer({ description: 'The blocks\' prices summed: what they saved (millionths of the currency\'s unit).' }),
    shadowBlockedMicros: Type.Integer({ description: 'The shadow blocks\' prices summed: what blocking them would have saved.' }),
    blocks: Type.Integer({ description: 'Blocks priced in this currency.' }),
    shadowBlocks: Type.Integer({ description: 'Shadow blocks priced in this currency.' }),
  }), { description: 'Per currency of the decisions\' prices, by currency code.' }),
  unpriced: Type.Object({
    blocks: Type.Integer(),
    shadowBlocks: Type.Integer(),
  }, { description: 'Blocks and shadow blocks recorded without a price (no price list, an email, no known price, or made before prices were recorded).' }),
}, { description: 'What the risk score\'s blocks saved and its shadow blocks would have saved, per currency.' });

export const RiskSettingsRequestSchema = Type.Object({
  mode: Type.Optional(Type.Union([Type.Literal('enforce'), Type.Literal('shadow'), Type.Literal('off')], { description: 'enforce: block; shadow: decide and record, never refuse; off: no score.' })),
  blockScore: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  countryBlockScores: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Z]{2}$' }), Type.Integer({ minimum: 1, maximum: 100 }), { description: 'Per country, a threshold replacing blockScore; replaces the whole map.' })),
}, { additionalProperties: false, description: 'Fields to change; those left out keep their values.' });

export const RiskSettingsResponseSchema = Type.Object({
  applicationId: Type.String(),
  mode: Type.String(),
  blockScore: Type.Integer(),
  countryBlockScores: Type.Record(Type.String(), Type.Integer()),
  updatedAt: Type.Union([Type.Integer(), Type.Null()], { description: 'null: never changed (a new application\'s defaults).' }),
}, { description: 'The application\'s risk mode and block thresholds.' });

export const PinDetailsResponseSchema = Type.Object({
  pinId: Type.String(),
  applicationId: Type.String(),
  messageId: Type.String(),
  channel: Type.String(),
  to: Type.String(),
  state: Type.String({ description: 'pending, verified, expired or locked.' }),
  attemptsRemaining: Type.Integer(),
  createdAt: Type.Integer(),
  expiresAt: Type.Integer(),
  verifiedAt: Type.Union([Type.Integer(), Type.Null()]),
  sendCount: Type.Integer({ description: 'Sends and resends queued for this PIN.' }),
  testNumber: Type.Boolean({ description: 'Sent to one of the account\'s test numbers (/api/v1/test-numbers): nothing was delivered and its fixed code verifies.' }),
  delivery: Type.Object({
    status: Type.String({ description: 'queued, sent, delivered, undelivered, failed or not_sent.' }),
    transport: Type.Union([Type.String(), Type.Null()]),
    providerMessageId: Type.Union([Type.String(), Type.Null()]),
    sentAt: Type.Union([Type.Integer(), Type.Null()]),
    deliveredAt: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
  }),
  history: Type.Array(DeliveryEventSchema),
  messages: Type.Array(MessagePriceSchema, { description: 'The messages transports took for this PIN, each with its price (docs/routing.md#prices), oldest first.' }),
  risk: Type.Optional(RiskDecisionSchema),
  assessment: Type.Optional(Type.Object({
    score: Type.Integer({ description: '0 to 100.' }),
    threshold: Type.Integer(),
    decision: Type.String({ description: 'allow or shadow_block (a blocked send has no PIN).' }),
    mode: Type.String({ description: 'enforce or shadow.' }),
    signals: Type.Array(Type.Object({ name: Type.String(), points: Type.Number(), value: Type.String() }), { description: 'The signals that added points, strongest first.' }),
  }, { description: 'The risk assessment the PIN was sent under, as its webhook events carry it: every scored PIN has one, whether or not its decision was recorded (risk).' })),
  nextResendAt: Type.Union([Type.String(), Type.Null()], {
    description: 'When the application\'s sendPinPerPhoneNumberLimit lets the next resend of this PIN through (ISO 8601; now or earlier: at once), '
      + 'for a countdown; null once the PIN can no longer be resent (verified, expired or locked).',
  }),
  workflow: Type.Optional(Type.Array(Type.Object({
    step: Type.Integer({ description: 'Index in the application\'s workflow, from 0.' }),
    channel: Type.String(),
    state: Type.String({ description: 'scheduled, running, sent, failed (its message failed: the next step went at once), skipped (could not go: see reason) or cancelled (the PIN ended first).' }),
    dueAt: Type.Union([Type.String(), Type.Null()], { description: 'When the step goes (scheduled) or went due (ISO 8601); null for a step skipped at the send.' }),
    reason: Type.Union([Type.String(), Type.Null()]),
  }), { description: 'The steps of the application\'s workflow for this PIN; absent when it was sent without one.' })),
}, { description: 'A PIN\'s state and delivery history; never the PIN.' });

// --- workflows ---

export const WorkflowStepSchema = Type.Object({
  channel: Type.String({ maxLength: 16, description: 'sms, voice, email, whatsapp or telegram.' }),
  after: Type.Optional(Type.String({ maxLength: 16, description: 'How long after the previous step this one goes out ({timeLength}{timeUnit}, 1s to 1h, e.g. "30s"); not on the first step.' })),
}, { additionalProperties: false });

export const WorkflowSchema = Type.Object({
  steps: Type.Array(WorkflowStepSchema, { maxItems: 20, description: 'In order; the first goes out at once. At most 5.' }),
}, { additionalProperties: false, description: 'The channels one PIN goes out on in turn until it is verified, expires, is locked or cancelled; a failed delivery moves to the next step at once.' });

// --- the console's operations ---

const EpochMs = (description: string) => Type.String({ pattern: '^[0-9]{1,15}$', description: `${description} (UNIX time in milliseconds).` });
const ChannelSchema = Type.Union([Type.Literal('sms'), Type.Literal('voice'), Type.Literal('email'), Type.Literal('whatsapp'), Type.Literal('telegram')]);
const PinStateSchema = Type.Union([Type.Literal('pending'), Type.Literal('verified'), Type.Literal('expired'), Type.Literal('locked')]);

export const PinListQuerySchema = Type.Object({
  to: Type.Optional(Type.String({ maxLength: 320, description: 'Destinations containing this text (a phone number\'s digits, or part of an email address).' })),
  applicationId: Type.Optional(Type.String({ maxLength: 64, description: 'Only PINs of this application.' })),
  channel: Type.Optional(ChannelSchema),
  status: Type.Optional(PinStateSchema),
  since: Type.Optional(EpochMs('Only PINs created at or after this time')),
  until: Type.Optional(EpochMs('Only PINs created before this time')),
  cursor: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,200}$', description: 'The nextCursor of the previous page.' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: 'PINs per page (default 25, max 100).' })),
});

export const PinSummarySchema = Type.Object({
  pinId: Type.String(),
  applicationId: Type.String(),
  applicationName: Type.Union([Type.String(), Type.Null()], { description: 'Null when the application no longer exists.' }),
  messageId: Type.String(),
  channel: ChannelSchema,
  to: Type.String(),
  country: Type.Union([Type.String(), Type.Null()], { description: 'ISO 3166-1 alpha-2 country of a phone destination; null for email or unknown.' }),
  state: PinStateSchema,
  attemptsRemaining: Type.Integer(),
  createdAt: Type.Integer(),
  expiresAt: Type.Integer(),
  verifiedAt: Type.Union([Type.Integer(), Type.Null()]),
  deliveryStatus: Type.String({ description: 'queued, sent, delivered, undelivered, failed or not_sent.' }),
  sentAt: Type.Union([Type.Integer(), Type.Null()]),
  deliveredAt: Type.Union([Type.Integer(), Type.Null()]),
  sendCount: Type.Integer(),
  testNumber: Type.Boolean({ description: 'Sent to a test number: nothing delivered, left out of the statistics.' }),
  dialect: Type.Union([Type.Literal('infobip'), Type.Literal('twilio')], { description: 'The API the PIN was asked for through: infobip (/2fa/2 and /api/v1) or twilio (Twilio Verify, /v2).' }),
});

export const PinListResponseSchema = Type.Object({
  pins: Type.Array(PinSummarySchema),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page.' }),
}, { description: 'One page of the account\'s PINs, newest first; never the PIN.' });

export const StatsQuerySchema = Type.Object({
  from: Type.Optional(EpochMs('Start of the range, inclusive; default: seven days before `to`')),
  to: Type.Optional(EpochMs('End of the range, exclusive; default: now')),
  bucket: Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day')], { description: 'Width of a time bucket (UTC); default hour for up to two days, else day.' })),
});

const CountsSchema = { sent: Type.Integer({ description: 'PINs created in the range.' }), verified: Type.Integer({ description: 'Of those, the verified ones.' }), rate: Type.Number({ description: 'verified / sent, 0 when nothing was sent.' }) };

export const StatsResponseSchema = Type.Object({
  from: Type.Integer(),
  to: Type.Integer(),
  bucket: Type.Union([Type.Literal('hour'), Type.Literal('day')]),
  bucketMs: Type.Integer(),
  totals: Type.Object({ sends: Type.Integer(), deliveries: Type.Integer(), verifications: Type.Integer() }),
  series: Type.Array(Type.Object({
    start: Type.Integer({ description: 'Start of the bucket (UNIX time in milliseconds).' }),
    channel: ChannelSchema,
    sends: Type.Integer({ description: 'PINs created in the bucket.' }),
    deliveries: Type.Integer({ description: 'PINs whose message a transport accepted in the bucket.' }),
    verifications: Type.Integer({ description: 'PINs verified in the bucket.' }),
  }), { description: 'Buckets with anything in them, oldest first; missing buckets are zeros.' }),
  conversion: Type.Object({
    byChannel: Type.Array(Type.Object({ channel: ChannelSchema, ...CountsSchema })),
    byCountry: Type.Array(Type.Object({ country: Type.Union([Type.String(), Type.Null()], { description: 'Null: the number\'s country is unknown.' }), ...CountsSchema }), { description: 'Phone channels only, most sent first.' }),
  }),
  latency: Type.Array(Type.Object({
    channel: ChannelSchema,
    count: Type.Integer(),
    p50: Type.Integer({ description: 'Milliseconds from the send request until a transport accepted the message.' }),
    p90: Type.Integer(),
    p99: Type.Integer(),
    max: Type.Integer(),
  }), { description: 'Delivery latency percentiles (nearest rank) of the PINs created in the range.' }),
  blocked: Type.Array(Type.Object({
    event: Type.String({ description: 'What was refused: pin.send.refused, pin.resend.refused, pin.verify.refused.' }),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'Why: the limit (send:to = sendPinPerPhoneNumberLimit, send:app = sendPinPerApplicationLimit, verifyPinLimit) or the anti-fraud guard.' }),
    count: Type.Integer(),
  }), { description: 'Requests refused in the range, by what and why, from the audit log; most first. A refusal of a request about a test number\'s PIN has `;test-number` after its reason.' }),
  testNumbers: Type.Object(CountsSchema, { description: 'PINs sent to the account\'s test numbers in the range (/api/v1/test-numbers), counted apart: totals, series, conversion and latency leave them out.' }),
  queue: Type.Object({
    pending: Type.Integer({ description: 'The account\'s messages waiting for delivery now (queued, being delivered, or awaiting a retry), whatever the range.' }),
    oldestAgeMs: Type.Integer({ description: 'Milliseconds since the oldest of them was accepted; 0 when none waits. Time to the phone: a growing age means users wait for their codes.' }),
  }, { description: 'Delivery right now.' }),
}, { description: 'Sends, deliveries and verifications over time per channel, conversion, latency and refusals.' });

const ScopeSchema = Type.Union([Type.Literal('2fa:manage'), Type.Literal('2fa:pin:send'), Type.Literal('2fa:pin:approve')]);

export const ApiKeySchema = Type.Object({
  id: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to tell keys apart.' }),
  label: Type.Union([Type.String(), Type.Null()]),
  scopes: Type.Array(Type.String()),
  createdAt: Type.Integer(),
  revokedAt: Type.Union([Type.Integer(), Type.Null()]),
});

export const ApiKeyListResponseSchema = Type.Object({ keys: Type.Array(ApiKeySchema) }, { description: 'The account\'s API keys, revoked ones too; never a key itself.' });

export const CreateApiKeyRequestSchema = Type.Object({
  label: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()], { description: 'A name to recognise the key by.' })),
  scopes: Type.Array(ScopeSchema, { minItems: 1, maxItems: 3, uniqueItems: true, description: '`2fa:manage` (everything), `2fa:pin:send` (send, resend, verify; cancel a Twilio verification) and `2fa:pin:approve` (with 2fa:pin:send: approve a Twilio verification without its code).' }),
});

export const CreatedApiKeySchema = Type.Object({
  ...ApiKeySchema.properties,
  key: Type.String({ description: 'The key itself: shown this once, stored only as a hash.' }),
}, { description: 'The new key; `key` is never shown again.' });

export const ApiKeyIdParamsSchema = Type.Object({ id: Type.String({ maxLength: 64, description: 'API key id.' }) });

export const MeResponseSchema = Type.Object({
  accountName: Type.String(),
  accountSid: Type.String({ description: 'The account\'s SID (`AC` + 32 hex): the user name of HTTP Basic on the Twilio Verify API (/v2).' }),
  apiKeySid: Type.String({ description: 'The calling key\'s SID (`SK` + 32 hex): the other user name the Twilio Verify API takes with this key.' }),
  key: ApiKeySchema,
}, { description: 'The account and the API key of the caller.' });

export const TwilioAuthTokenSchema = Type.Object({
  accountSid: Type.String({ description: 'The account\'s SID (`AC` + 32 hex).' }),
  authToken: Type.String({ description: '32 hex characters: the key of the X-Twilio-Signature of the account\'s Verify webhook events (HMAC-SHA1, as Twilio signs).' }),
}, { description: 'The account\'s Twilio Auth Token.' });

// --- webhook subscriptions (PIN events) ---

const WebhookEventSchema = Type.Unsafe<PinEventSelector>({
  type: 'string', enum: [...PIN_EVENT_SELECTORS],
  description: 'pin.sent, pin.delivered, pin.failed, pin.verified, pin.expired, pin.locked, or * for every type.',
});

const webhookFields = {
  url: Type.String({ maxLength: 2048, description: 'Where events are POSTed: https://, or http:// to localhost/127.0.0.0/8/[::1] only.' }),
  events: Type.Array(WebhookEventSchema, { minItems: 1, maxItems: 8, description: 'Event types to receive.' }),
  enabled: Type.Optional(Type.Boolean({ description: 'Whether events are sent. Default true.' })),
  secret: Type.Optional(Type.String({ maxLength: 200, description: 'Signing secret `whsec_<base64>` (16+ bytes); generated when left out.' })),
};

export const CreateWebhookRequestSchema = Type.Object(webhookFields);
export const UpdateWebhookRequestSchema = Type.Partial(Type.Object({
  ...webhookFields,
  secret: Type.String({ maxLength: 200, description: 'A new signing secret `whsec_<base64>` (rotation); it replaces the old one at once.' }),
}));

const webhookResponseFields = {
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(WebhookEventSchema),
  enabled: Type.Boolean(),
  createdAt: Type.Integer({ description: 'UNIX time in milliseconds.' }),
  updatedAt: Type.Integer({ description: 'UNIX time in milliseconds.' }),
};

export const WebhookResponseSchema = Type.Object(webhookResponseFields, { description: 'The webhook subscription (its secret is shown only at creation).' });
export const CreatedWebhookResponseSchema = Type.Object({
  ...webhookResponseFields,
  secret: Type.String({ description: 'The signing secret, `whsec_<base64>`: shown only in this answer; store it now.' }),
}, { description: 'The new webhook subscription with its signing secret.' });

export const WebhookIdParamsSchema = Type.Object({ webhookId: Type.String({ maxLength: 64, description: 'Webhook subscription id.' }) });

// --- anti-fraud guards (/api/v1/applications/{appId}/security) and the audit log (/api/v1/audit) ---

const ConversionBreakerSchema = Type.Object({
  enabled: Type.Boolean({ description: 'Block a country whose sends are not verified (SMS pumping), for blockFor.' }),
  window: Type.String({ description: 'Window sends and verifications are counted over, e.g. "1h" (at most 1d).' }),
  minSends: Type.Integer({ description: 'Sends to a country in the window before its conversion rate is judged.' }),
  minConversionRate: Type.Number({ description: 'Verified share of the sends (0 to 1) below which the country is blocked.' }),
  blockFor: Type.String({ description: 'How long a tripped block lasts, e.g. "1h" (at most 1d).' }),
});

export const SecuritySettingsSchema = Type.Object({
  enabled: Type.Boolean({ description: 'Master switch; no guard runs while false (the default).' }),
  allowedCountries: Type.Array(Type.String(), { description: 'ISO 3166-1 alpha-2 codes; when not empty, phone PINs go only there.' }),
  blockedCountries: Type.Array(Type.String(), { description: 'ISO 3166-1 alpha-2 codes phone PINs never go to.' }),
  allowedPrefixes: Type.Array(Type.String(), { description: 'Leading digits (country code first); when not empty, only numbers starting so.' }),
  blockedPrefixes: Type.Array(Type.String(), { description: 'Leading digits of numbers that are refused.' }),
  refusePremiumNumbers: Type.Boolean({ description: 'Refuse premium-rate and shared-cost numbers.' }),
  perIpSendLimit: Type.Union([Type.String(), Type.Null()], { description: 'Sends per client address, e.g. "10/1h" (IPv6 counted per /64); null: no limit.' }),
  perPrefixSendLimit: Type.Union([Type.String(), Type.Null()], { description: 'Sends per number range (the number without its last 4 digits), e.g. "20/1h"; null: no limit.' }),
  conversionBreaker: ConversionBreakerSchema,
}, { description: 'Anti-fraud settings of the application.' });

export const SecuritySettingsRequestSchema = Type.Object({
  enabled: Type.Optional(Type.Boolean()),
  allowedCountries: Type.Optional(Type.Array(Type.String({ maxLength: 8 }), { maxItems: 300 })),
  blockedCountries: Type.Optional(Type.Array(Type.String({ maxLength: 8 }), { maxItems: 300 })),
  allowedPrefixes: Type.Optional(Type.Array(Type.String({ maxLength: 16 }), { maxItems: 300 })),
  blockedPrefixes: Type.Optional(Type.Array(Type.String({ maxLength: 16 }), { maxItems: 300 })),
  refusePremiumNumbers: Type.Optional(Type.Boolean()),
  perIpSendLimit: Type.Optional(Type.String({ maxLength: 32, description: 'e.g. "10/1h"; "" removes the limit.' })),
  perPrefixSendLimit: Type.Optional(Type.String({ maxLength: 32, description: 'e.g. "20/1h"; "" removes the limit.' })),
  conversionBreaker: Type.Optional(Type.Object({
    enabled: Type.Optional(Type.Boolean()),
    window: Type.Optional(Type.String({ maxLength: 16 })),
    minSends: Type.Optional(Type.Integer()),
    minConversionRate: Type.Optional(Type.Number()),
    blockFor: Type.Optional(Type.String({ maxLength: 16 })),
  }, { additionalProperties: false })),
}, { additionalProperties: false, description: 'Fields to change; those left out keep their values.' });

const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const SecurityResponseSchema = Type.Object({
  applicationId: Type.String(),
  settings: SecuritySettingsSchema,
  activeBlocks: Type.Array(Type.Object({
    scope: Type.String({ description: 'What is blocked, e.g. "country:XX".' }),
    blockedUntil: Type.Integer({ description: 'UNIX time in milliseconds.' }),
    reason: Type.String(),
  }), { description: 'Blocks the conversion breaker tripped that have not expired.' }),
  bruteForce: Type.Object({
    weakestTemplate: Type.Union([Type.Object({ messageId: Type.String(), pinType: Type.String(), pinLength: Type.Integer() }), Type.Null()]),
    pinSpace: NullableNumber,
    attemptsPerPin: Type.Integer(),
    pinsPerDestinationPerDay: Type.Number(),
    guessesPerDestinationPerDay: Type.Number(),
    successProbabilityPerPin: NullableNumber,
    successProbabilityPerDestinationPerDay: NullableNumber,
    threshold: Type.Number(),
    warning: Type.Union([Type.String(), Type.Null()]),
  }, { description: 'Worst-case chance that a guesser succeeds, from the alphabet, length, attempts and send and verify limits.' }),
  totp: Type.Object({
    codeLength: Type.Integer({ description: 'The Service\'s Totp.CodeLength, else 6.' }),
    skew: Type.Integer({ description: 'The Service\'s Totp.Skew, else 1.' }),
    codesPerWindow: Type.Integer(),
    windowMinutes: Type.Number(),
    codesPerChallenge: Type.Integer(),
    codesPerVerification: Type.Integer(),
    guessesPerFactorPerDay: Type.Integer(),
    successProbabilityPerFactorPerDay: Type.Number(),
    wrongChallengeCodes: Type.Integer({ description: 'Wrong or replayed codes in challenges of the last 24 hours.' }),
    deniedChallenges: Type.Integer({ description: 'Challenges denied (five wrong codes) in the last 24 hours.' }),
    lockedFactors: Type.Integer({ description: 'Unverified factors locked out after five wrong codes.' }),
  }, { description: 'Guessing against the application\'s TOTP factors: the bound and what the last 24 hours saw (docs/factors.md).' }),
  updatedAt: Type.Union([Type.Integer(), Type.Null()], { description: 'When the settings were last changed; null: never (all guards off).' }),
}, { description: 'The application\'s anti-fraud settings, active breaker blocks and brute-force budget.' });

export const AuditQuerySchema = Type.Object({
  applicationId: Type.Optional(Type.String({ maxLength: 64 })),
  pinId: Type.Optional(Type.String({ maxLength: 64 })),
  event: Type.Optional(Type.String({ maxLength: 64, description: 'e.g. pin.send, pin.verify, delivery.sent, config.security.update.' })),
  after: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'Entries after this sequence number: the `next` of the previous page.' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'At most this many entries (default 100, max 1000).' })),
});

export const AuditEntrySchema = Type.Object({
  seq: Type.Integer({ description: 'Position in the account\'s chain, from 1.' }),
  at: Type.Integer({ description: 'UNIX time in milliseconds.' }),
  event: Type.String(),
  applicationId: Type.Union([Type.String(), Type.Null()]),
  pinId: Type.Union([Type.String(), Type.Null()]),
  destination: Type.Union([Type.String(), Type.Null()], { description: 'Masked.' }),
  sourceIp: Type.Union([Type.String(), Type.Null()]),
  actor: Type.Union([Type.String(), Type.Null()], { description: 'API key id, or the component (delivery, a transport).' }),
  reason: Type.Union([Type.String(), Type.Null()]),
  prevHash: Type.String(),
  hash: Type.String({ description: 'Keyed HMAC over the entry and prevHash; `twofa audit verify` checks the chain.' }),
});

export const AuditPageSchema = Type.Object({
  entries: Type.Array(AuditEntrySchema),
  next: Type.Union([Type.Integer(), Type.Null()], { description: 'Pass as `after` for the next page; null on the last page.' }),
}, { description: 'A page of the account\'s audit log, oldest first.' });

// --- SMS autofill of a 2FA message template ---

export const AutofillRequestSchema = Type.Object({
  webOtpDomain: Type.Optional(Type.String({ maxLength: 253, description: 'Host the code is bound to: the SMS ends with the line `@<host> #<code>` (WebOTP, iOS security-code autofill). Absent: none.' })),
  androidAppHash: Type.Optional(Type.String({ maxLength: 11, description: 'The 11-character Android SMS Retriever app hash, on its own line; the whole SMS must then fit in 140 bytes. Absent: none.' })),
}, { additionalProperties: false });

export const AutofillResponseSchema = Type.Object({
  webOtpDomain: Type.Union([Type.String(), Type.Null()]),
  androidAppHash: Type.Union([Type.String(), Type.Null()]),
}, { description: 'The autofill lines added to the SMS of this message (never to Infobip-shaped bodies or voice calls).' });

// --- locale texts of 2FA messages (/api/v1/applications/{appId}/messages/{msgId}/texts) ---

export const TemplateTextParamsSchema = Type.Object({ appId: Type.String({ maxLength: 64 }), msgId: Type.String({ maxLength: 64 }), textId: Type.String({ maxLength: 64 }) });

const LocaleTextBody = Type.String({ minLength: 1, maxLength: 1600, description: 'The text, with {{pin}} (required) and the message\'s placeholders ({{friendly_name}}: the brand or service name a dialect\'s start gives).' });

export const CreateTemplateTextRequestSchema = Type.Object({
  locale: Type.String({ minLength: 2, maxLength: 35, description: 'A BCP-47 tag (en-us, pt-BR, el): matched without regard to case or -/_.' }),
  channel: Type.Optional(Type.Union([Type.Literal('sms'), Type.Literal('voice'), Type.Null()], { description: 'sms or voice; left out or null: every phone channel (a channel\'s own text wins).' })),
  text: LocaleTextBody,
}, { additionalProperties: false });

export const UpdateTemplateTextRequestSchema = Type.Object({ text: LocaleTextBody }, { additionalProperties: false });

export const TemplateTextSchema = Type.Object({
  id: Type.String(),
  locale: Type.String(),
  channel: Type.Union([Type.Literal('sms'), Type.Literal('voice'), Type.Null()]),
  text: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}, { additionalProperties: false, title: 'TemplateText', description: 'A text of the message for one locale (and channel), picked at delivery by the send\'s locale, else the number\'s country\'s language.' });

export const TemplateTextListSchema = Type.Object({ texts: Type.Array(TemplateTextSchema) }, { title: 'TemplateTextList', description: 'The message\'s locale texts, in the order they were added.' });

// --- test numbers (/api/v1/test-numbers) ---

export const CreateTestNumberRequestSchema = Type.Object({
  destination: Type.String({ maxLength: 320, description: 'A phone number (international digits, e.g. 41790000001; a leading + is accepted) or an email address, normalised as sends normalise it.' }),
  code: Type.String({ maxLength: 16, description: 'The fixed code: 4 to 16 letters or digits (at least 6 under the strict security profile). Stored encrypted; never shown again.' }),
}, { additionalProperties: false });

export const TestNumberSchema = Type.Object({
  id: Type.String(),
  destination: Type.String({ description: 'As normalised: international digits without +, or the email address.' }),
  createdAt: Type.Integer({ description: 'UNIX time in milliseconds.' }),
}, { description: 'A test number of the account: sends to it deliver nothing and its fixed code verifies (the code is never shown).' });

export const SafeListRequestSchema = Type.Union([
  Type.Object({ phoneNumber: Type.String({ maxLength: 32, description: 'A number: E.164 with its leading +, e.g. +447911123456.' }) }, { additionalProperties: false }),
  Type.Object({ prefix: Type.String({ maxLength: 32, description: 'A prefix, listing every number it starts: E.164\'s + and 1 to 14 digits, e.g. +4479 (a trailing * is allowed).' }) }, { additionalProperties: false }),
], { description: 'A number (phoneNumber) or a prefix (prefix).' });

export const SafeListEntrySchema = Type.Object({
  sid: Type.String({ description: 'The entry\'s id, as Twilio\'s Safe List names it (GN...).' }),
  phoneNumber: Type.Optional(Type.String({ description: 'A listed number: E.164 with +.' })),
  prefix: Type.Optional(Type.String({ description: 'A listed prefix: E.164\'s + and its digits (it lists every number it starts).' })),
  createdAt: Type.Integer({ description: 'UNIX time in milliseconds.' }),
}, { description: 'A number or a prefix of the account\'s Safe List: the destination guards and the risk score never block it, and the score does not count it in its baselines (its sends still count against the per-address limits).' });

export const SafeListResponseSchema = Type.Object({ entries: Type.Array(SafeListEntrySchema) }, { description: 'Every number and prefix of the account\'s Safe List, in the order of their digits.' });

export const SafeListParamsSchema = Type.Object({ entry: Type.String({ maxLength: 33, description: 'A number, E.164 with its leading + (URL-encoded: %2B), or a prefix followed by * (%2B4479*).' }) });

export const TestNumberIdParamsSchema = Type.Object({ id: Type.String({ maxLength: 64, description: 'Test number id.' }) });

// --- Prelude Verify: the application an account's Prelude calls use ---

export const PreludeSettingsSchema = Type.Object({
  applicationId: Type.Union([Type.String(), Type.Null()], { description: 'The application every Prelude verification of the account is sent and checked in; null until set (Prelude calls are then refused).' }),
  customCodeAllowed: Type.Boolean({ description: 'Whether creates may choose their code (options.custom_code).' }),
}, { description: 'How the account\'s Prelude Verify calls (/v2/verification) reach the engine.' });

export const PreludeSettingsBodySchema = Type.Object({
  applicationId: Type.String({ maxLength: 64 }),
  customCodeAllowed: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export const VonageApplicationSchema = Type.Object({
  applicationId: Type.String({ description: 'The twofa application, which is the Vonage application: its id is the JWTs\' application_id.' }),
  publicKey: Type.String({ description: 'PEM of the RSA public key the application\'s JWTs (RS256) are checked with.' }),
  callbackUrl: Type.Union([Type.String(), Type.Null()], { description: 'Where the Verify callbacks (event, summary) are POSTed, Vonage\'s status URL; null: none are sent.' }),
  signatureSecretSet: Type.Boolean({ description: 'Whether the application has a signature secret (it signs the callbacks, HS256).' }),
  signatureSecret: Type.Optional(Type.String({ description: 'The signature secret, only in the answer that set it (the first callback URL, a rotation, or one given): it is never shown again.' })),
  updatedAt: Type.String({ format: 'date-time' }),
}, { description: 'A twofa application as a Vonage application of the Vonage Verify dialect (/v2/verify).' });

export const VonageApplicationListSchema = Type.Object({
  applications: Type.Array(VonageApplicationSchema),
}, { description: 'The account\'s Vonage applications.' });

export const VonageApplicationBodySchema = Type.Object({
  publicKey: Type.Optional(Type.String({ maxLength: 8192, description: 'PEM (-----BEGIN PUBLIC KEY-----) of an RSA key; required when the application is registered.' })),
  callbackUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'https URL of the Verify callbacks; an empty string removes it (callbacks still waiting are cancelled). The first one comes with a new signature secret.' })),
  signatureSecret: Type.Optional(Type.String({ maxLength: 128, description: 'A signature secret of your choosing (32 to 128 characters) instead of one made by twofa.' })),
}, { additionalProperties: false });

export const ApplicationIdParamsSchema = Type.Object({ applicationId: Type.String({ maxLength: 64 }) });
