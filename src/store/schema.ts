// Table shapes as Kysely sees them. Portable across SQLite and PostgreSQL: text ids made by the
// application, times as integer epoch milliseconds, booleans as 0/1 integers, JSON as text.
import type { ColumnType, Generated, Selectable } from 'kysely';

export interface AccountsTable {
  id: string;
  name: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  /** SHA-256 of the key, hex; the key itself is shown once and never stored. */
  key_hash: string;
  /** First characters of the key, so an operator can tell keys apart in a listing. */
  key_prefix: string;
  /** Space-separated scopes, e.g. "2fa:manage 2fa:pin:send". */
  scopes: string;
  label: string | null;
  created_at: number;
  revoked_at: number | null;
}

export interface ApplicationsTable {
  id: string;
  account_id: string;
  name: string;
  enabled: number;
  pin_attempts: number;
  allow_multiple_pin_verifications: number;
  pin_time_to_live: string;
  verify_pin_limit: string;
  send_pin_per_application_limit: string;
  send_pin_per_phone_number_limit: string;
  created_at: number;
  updated_at: number;
  /** The workflow's steps as JSON (domain/workflows.ts); null: none. Written only by the workflow store. */
  workflow?: string | null;
}

export interface MessageTemplatesTable {
  id: string;
  account_id: string;
  application_id: string;
  /** 'sms_voice' templates are created under /messages, 'email' ones under /email/messages. */
  kind: 'sms_voice' | 'email';
  pin_type: string;
  pin_length: number;
  message_text: string | null;
  sender_id: string | null;
  language: string | null;
  voice_name: string | null;
  repeat_dtmf: string | null;
  speech_rate: number | null;
  /** JSON of Infobip's `regional` object. */
  regional: string | null;
  email_template_id: number | null;
  email_from: string | null;
  landing_page_id: string | null;
  /** JSON of the SMS autofill setting (domain/autofill.ts); null: none. */
  autofill: string | null;
  /** JSON array of the template's locale texts (domain/template-locales.ts); null: none. */
  locale_texts: string | null;
  /** The template's name (Vonage's templates); null: none. */
  name: string | null;
  /** 1: the application's default template for starts that name none (Vonage's is_default). */
  is_default: number;
  created_at: number;
  updated_at: number;
}

export interface EmailTemplatesTable {
  id: Generated<number>;
  account_id: string;
  name: string;
  from_address: string | null;
  subject: string;
  html: string | null;
  text: string | null;
  created_at: number;
  updated_at: number;
}

/** A claim's node id (TWOFA_NODE_ID); written by claims only, so inserts leave it out (null: never claimed). */
type LeaseHolder = ColumnType<string | null, string | null | undefined, string | null>;

/** The columns a PinRecord is made of (store/kysely-store.ts toPin): what a read of a PIN to verify or to show needs, without its message's. */
export const PIN_RECORD_COLUMNS = ['id', 'account_id', 'application_id', 'message_id', 'channel', 'destination', 'pin_hash', 'pin_ciphertext',
  'attempts_left', 'allow_multiple_verifications', 'created_at', 'expires_at', 'verified_at', 'locked_at', 'delivery_status', 'delivery_error',
  'sent_at', 'send_count', 'delivery_transport', 'provider_message_id', 'delivered_at', 'test_number'] as const satisfies readonly (keyof PinsTable)[];

export type PinRecordRow = Pick<Selectable<PinsTable>, (typeof PIN_RECORD_COLUMNS)[number]>;

export interface PinsTable {
  id: string;
  account_id: string;
  application_id: string;
  message_id: string;
  channel: 'sms' | 'voice' | 'email' | 'whatsapp' | 'telegram';
  destination: string;
  /** `<keyId>:<HMAC>` of pinId||pin. */
  pin_hash: string;
  /** `<keyId>:<AES-GCM>` of the PIN for resend; NULL once the PIN has ended. */
  pin_ciphertext: string | null;
  attempts_left: number;
  allow_multiple_verifications: number;
  created_at: number;
  expires_at: number;
  verified_at: number | null;
  /** Set when the PIN ended early (locked after the last wrong attempt). */
  locked_at: number | null;
  /** queued | sent | failed | not_sent */
  delivery_status: string;
  delivery_error: string | null;
  sent_at: number | null;
  send_count: number;
  /** The transport that accepted the latest message, and the provider's id for it. */
  delivery_transport: string | null;
  provider_message_id: string | null;
  /** When a delivery receipt confirmed the message reached the handset or mailbox. */
  delivered_at: number | null;
  /** ISO 3166-1 alpha-2 country of a phone destination (from its calling code) at send time; NULL for email or unknown. */
  country: string | null;
  // The PIN's first message, on the PIN's own row (docs/architecture.md, "The write path"): the
  // outbox of first messages is the partial index pins_message_due. Later messages (resends, failover)
  // are `outbox` rows. Its `queued` and `sent` history entries are read from these columns.
  /** The message's delivery id (Infobip's externalMessageId, the webhook-id); NULL: no message of its own. */
  delivery_id: string | null;
  /** pending | done | failed | cancelled; NULL: no message of its own. */
  message_state: string | null;
  /** JSON: placeholders and sender override of the request; never the PIN or rendered text. */
  message_request: string | null;
  message_attempts: number;
  message_due_at: number | null;
  message_lease_until: number;
  /** The node (TWOFA_NODE_ID) that claimed the message last. */
  message_lease_holder: LeaseHolder;
  message_error: string | null;
  message_queued_at: number | null;
  /** When a transport accepted it, which one and the provider's id for it (receipts match by these). */
  message_sent_at: number | null;
  message_transport: string | null;
  message_provider_id: string | null;
  /** The sort key of its `sent` entry among the PIN's history rows (see nextEventId). */
  message_sent_event: string | null;
  /** 1 when the PIN was sent to one of the account's test numbers (nothing delivered, a fixed code). */
  test_number: Generated<number>;
  /** The risk assessment it was sent under (JSON: domain/risk-score.ts's RiskSummary), for its events and detail; NULL: not scored. */
  risk: string | null;
}

export interface OutboxTable {
  id: string;
  pin_id: string;
  account_id: string;
  channel: 'sms' | 'voice' | 'email' | 'whatsapp' | 'telegram';
  /** JSON: placeholders and sender override of the request; never the PIN or rendered text. */
  request: string;
  /** pending | done | failed | cancelled */
  state: string;
  attempts: number;
  next_attempt_at: number;
  lease_until: number;
  /** The node (TWOFA_NODE_ID) that claimed the row last. */
  lease_holder: LeaseHolder;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  transport: string | null;
  provider_message_id: string | null;
}

/** The delivery history of a PIN: queued, sent, delivered, undelivered, retried, failed, cancelled. */
export interface DeliveryEventsTable {
  id: string;
  pin_id: string;
  account_id: string;
  at: number;
  event: string;
  channel: string | null;
  transport: string | null;
  provider_message_id: string | null;
  error: string | null;
}

export interface RateLimitBucketsTable {
  key: string;
  bucket_start: number;
  hits: number;
  /** Time of the newest hit in the bucket: the bucket counts until this leaves the window. */
  last_at: number;
  /** When the bucket no longer counts for the window it was written for; the purge job deletes it then. */
  expires_at: number;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  applications: ApplicationsTable;
  message_templates: MessageTemplatesTable;
  email_templates: EmailTemplatesTable;
  pins: PinsTable;
  outbox: OutboxTable;
  rate_limit_buckets: RateLimitBucketsTable;
  delivery_events: DeliveryEventsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  event_outbox: EventOutboxTable;
  security_settings: SecuritySettingsTable;
  security_blocks: SecurityBlocksTable;
  conversion_counts: ConversionCountsTable;
  risk_settings: RiskSettingsTable;
  risk_counters: RiskCountersTable;
  risk_recent_hits: RiskRecentHitsTable;
  route_deliveries: RouteDeliveriesTable;
  route_conversions: RouteConversionsTable;
  application_senders: ApplicationSendersTable;
  risk_decisions: RiskDecisionsTable;
  audit_log: AuditLogTable;
  audit_heads: AuditHeadsTable;
  idempotency_keys: IdempotencyKeysTable;
  twilio_services: TwilioServicesTable;
  twilio_verifications: TwilioVerificationsTable;
  twilio_attempts: TwilioAttemptsTable;
  twilio_rate_limits: TwilioRateLimitsTable;
  twilio_service_locales: TwilioServiceLocalesTable;
  safe_list_numbers: SafeListNumbersTable;
  twilio_messaging_configurations: TwilioMessagingConfigurationsTable;
  pin_workflow_steps: PinWorkflowStepsTable;
  twilio_rate_limit_buckets: TwilioRateLimitBucketsTable;
  test_numbers: TestNumbersTable;
  twilio_webhooks: TwilioWebhooksTable;
  twilio_auth_tokens: TwilioAuthTokensTable;
  twilio_start_locks: TwilioStartLocksTable;
  prelude_settings: PreludeSettingsTable;
  vonage_applications: VonageApplicationsTable;
  vonage_requests: VonageRequestsTable;
  prelude_verifications: PreludeVerificationsTable;
  factor_entities: FactorEntitiesTable;
  factors: FactorsTable;
  factor_challenges: FactorChallengesTable;
  message_prices: MessagePricesTable;
  budgets: BudgetsTable;
  budget_spend: BudgetSpendTable;
}

/** A user of an application, as Twilio's Entities name it (src/store/factor-store.ts). */
export interface FactorEntitiesTable {
  /** YE + 32 random hex. */
  sid: string;
  account_id: string;
  application_id: string;
  /** The customer's id of the user: unique in the application. */
  identity: string;
  created_at: number;
  updated_at: number;
}

/** An entity's authenticator: a TOTP seed or a passkey (src/store/factor-store.ts). */
export interface FactorsTable {
  /** YF + 32 random hex. */
  sid: string;
  account_id: string;
  application_id: string;
  entity_sid: string;
  /** totp or passkeys. */
  factor_type: string;
  /** unverified or verified. */
  status: string;
  friendly_name: string;
  /** JSON: TOTP {alg, time_step, code_length, skew}; passkeys the relying party and authenticator criteria. */
  config: string;
  /** JSON object of strings, or null. */
  metadata: string | null;
  /** TOTP: `<keyId>:<AES-GCM>` of the Base32 seed under the PIN keyring, bound to the factor's SID. */
  secret_ciphertext: string | null;
  /** Passkeys: the WebAuthn challenge the registration must answer (base64url), null once verified. */
  registration_challenge: string | null;
  /** Passkeys: the credential's id (base64url), unique in the application. */
  credential_id: string | null;
  /** Passkeys: the credential's COSE public key (base64url). */
  public_key: string | null;
  /** Passkeys: the authenticator's signature counter, only ever raised. */
  sign_count: number | null;
  /** Passkeys: JSON list of the credential's transports, or null. */
  transports: string | null;
  /** TOTP: the time step of the last code accepted; a code of that step or an earlier one is refused (replay). */
  last_used_step: number | null;
  /** Counted attempts of the factor's verification (unverified factors only). */
  verification_attempts: number;
  created_at: number;
  updated_at: number;
}

/** One sign-in asking a factor for proof (src/store/factor-store.ts). */
export interface FactorChallengesTable {
  /** YC + 32 random hex. */
  sid: string;
  account_id: string;
  application_id: string;
  /** Null for a passkeys challenge of a discoverable credential, until its answer names the user. */
  entity_sid: string | null;
  factor_sid: string | null;
  factor_type: string;
  /** pending, approved or denied (expired is a pending one past expires_at, also written by nothing). */
  status: string;
  responded_reason: string;
  /** JSON {message, date, fields}, or null. */
  details: string | null;
  hidden_details: string | null;
  metadata: string | null;
  /** Passkeys: the WebAuthn challenge the assertion must answer (base64url). */
  nonce: string | null;
  /** Counted answers (a TOTP code each). */
  attempts: number;
  expires_at: number;
  responded_at: number | null;
  created_at: number;
  updated_at: number;
}

/** The Vonage applications of the Vonage Verify dialect (src/store/vonage-store.ts). */
export interface VonageApplicationsTable {
  /** The twofa application's id, which is the Vonage application id of its JWTs. */
  application_id: string;
  account_id: string;
  /** PEM (SPKI) of the RSA public key the application's JWTs (RS256) are checked with. */
  public_key: string;
  updated_at: number;
  /** Where the application's Verify callbacks go (Vonage's status URL); null: none are sent. */
  callback_url: string | null;
  /** The secret that signs the callbacks (HS256), encrypted under TWOFA_SECRET. */
  signature_secret_ciphertext: string | null;
}

/** A Vonage request's own fields beside its PIN (src/store/dialect-callbacks.ts). */
export interface VonageRequestsTable {
  pin_id: string;
  account_id: string;
  application_id: string;
  client_ref: string | null;
  /** Seconds between the workflow's channels. */
  channel_timeout: number;
  /** The workflow's channels, Vonage's names, space-separated. */
  channels: string;
  created_at: number;
  /** The PIN's expiry (the row is purged with it). */
  expires_at: number;
  /** The end reported by the callbacks (completed, failed, expired); null while the request runs. */
  reported: string | null;
}

/** A Prelude verification's own fields beside its PIN (src/store/dialect-callbacks.ts). */
export interface PreludeVerificationsTable {
  pin_id: string;
  account_id: string;
  correlation_id: string | null;
  callback_url: string | null;
  created_at: number;
  expires_at: number;
  /** 1 once verify.authentication was queued. */
  authentication_reported: number;
  /** The PIN's sends (send_count) reported by verify.attempt so far. */
  reported_sends: number;
  /** The delivery status the last verify.delivery_status reported (since that attempt). */
  reported_delivery: string | null;
  /** 1 while webhooks may still be due. */
  open: number;
}

/** How an account's Prelude Verify calls reach the engine (src/store/prelude-store.ts). */
export interface PreludeSettingsTable {
  account_id: string;
  /** The application every Prelude verification of the account is sent and checked in. */
  application_id: string;
  /** 1 when `options.custom_code` is taken (Prelude needs it enabled per account). */
  custom_code_allowed: number;
  updated_at: number;
}

/** An account's test numbers (src/store/test-number-store.ts). */
export interface TestNumbersTable {
  id: string;
  account_id: string;
  /** Normalised as sends normalise it: digits of an E.164 number, or a lower-cased email address. */
  destination: string;
  /** `<keyId>:<AES-GCM>` of the fixed code under the PIN keyring, bound to the row's id. */
  code_ciphertext: string;
  created_at: number;
}

/** A Twilio Verify Webhook of a Service. */
export interface TwilioWebhooksTable {
  /** YW + 32 hex. */
  sid: string;
  account_id: string;
  application_id: string;
  friendly_name: string;
  /** Event types or `*`, separated by spaces. */
  event_types: string;
  webhook_url: string;
  /** enabled, disabled. */
  status: string;
  /** v1, v2 (stored and answered; the body is the same). */
  version: string;
  created_at: number;
  updated_at: number;
}

/** An account's Twilio Auth Token, encrypted under the PIN keyring (context twilio-auth-token:<account>). */
export interface TwilioAuthTokensTable {
  account_id: string;
  token_ciphertext: string;
  /** SHA-256 of the token, to find the account of a login; NULL on a row made before 0027 until the next start. */
  token_digest: string | null;
  /** SHA-256 of the token a rotation replaced, accepted as a login until previous_valid_until. */
  previous_token_digest: string | null;
  previous_valid_until: number | null;
  created_at: number;
  updated_at: number;
}

/** One send of a Twilio Verification (a Verification Attempt). */
export interface TwilioAttemptsTable {
  /** VL + 32 hex: the outbox row's id when a message was queued. */
  sid: string;
  account_id: string;
  pin_id: string;
  /** Twilio's channel name: sms, call, email. */
  channel: string;
  /** 0, 1, ...: the order of the verification's sends, which may share a millisecond. */
  seq: number;
  created_at: number;
  /** The PIN's expiry: the purge deletes the row with the PIN. */
  expires_at: number;
}

/** A start to a destination of a Service under way (Twilio's 60212 for a second one at the same time). */
export interface TwilioStartLocksTable {
  key: string;
  expires_at: number;
}

/** The SMS/voice message template a Twilio Service sends in a locale other than English. */
export interface TwilioServiceLocalesTable {
  application_id: string;
  /** Twilio's spelling: fr, pt-BR, zh-HK. */
  locale: string;
  account_id: string;
  message_id: string;
}

/** A number on an account's Safe List: its sends pass the destination guards (countries, prefixes, premium, breaker). */
export interface SafeListNumbersTable {
  account_id: string;
  /** International digits without `+`, as PINs store them. */
  destination: string;
  /** GN + 32 hex. */
  sid: string;
  created_at: number;
}

/** A Twilio Service's Messaging Configuration: the messaging service (MG...) named for a country (or `all`). */
export interface TwilioMessagingConfigurationsTable {
  application_id: string;
  /** ISO 3166-1 alpha-2, upper case, or `all`. */
  country: string;
  account_id: string;
  messaging_service_sid: string;
  created_at: number;
  updated_at: number;
}

/** A Twilio Service Rate Limit: a name whose values a start may give (`RateLimits={"name":"value"}`). */
export interface TwilioRateLimitsTable {
  /** RK + 32 hex. */
  sid: string;
  account_id: string;
  application_id: string;
  unique_name: string;
  description: string | null;
  created_at: number;
  updated_at: number;
}

/** A Bucket of a Rate Limit: at most `max` starts per value of the limit in `interval` seconds. */
export interface TwilioRateLimitBucketsTable {
  /** BL + 32 hex. */
  sid: string;
  rate_limit_sid: string;
  account_id: string;
  application_id: string;
  max: number;
  interval: number;
  created_at: number;
  updated_at: number;
}

/** The Twilio-only side of an application that the Twilio Verify dialect serves as a Service. */
export interface TwilioServicesTable {
  application_id: string;
  account_id: string;
  /** JSON of the Twilio-only settings (lookup_enabled, psd2_enabled, push, totp, ...). */
  settings: string;
  /** The SMS/voice message template the service's verifications are sent with. */
  sms_message_id: string | null;
  /** The email message template, made at the first email verification. */
  email_message_id: string | null;
  /** Deleted through DELETE /v2/Services/{Sid}: hidden from the dialect, the application disabled. */
  deleted_at: number | null;
  created_at: number;
  updated_at: number;
}

/** The Twilio-only side of a PIN started as a Verification. */
export interface TwilioVerificationsTable {
  pin_id: string;
  account_id: string;
  /** pending, approved, canceled, max_attempts_reached (answered 60202 once; then gone), expired (reported by the expiry sweep). */
  status: string;
  /** Twilio's channel name of the latest send: sms, call, email. */
  channel: string;
  created_at: number;
  updated_at: number;
  /** The PIN's expiry: the purge deletes the row with the PIN. */
  expires_at: number;
  /** PSD2 (a Service with psd2_enabled): what the start named; null otherwise. */
  amount: string | null;
  payee: string | null;
}

/** An account's subscription to PIN events (POST /api/v1/webhooks). */
export interface WebhookSubscriptionsTable {
  id: string;
  account_id: string;
  /** https://..., or http:// to a loopback host. */
  url: string;
  /** Space-separated event types (`pin.sent pin.failed`), or `*` for all. */
  events: string;
  /** `<keyId>:<AES-GCM>` of the `whsec_` signing secret, under a key derived from TWOFA_SECRET. */
  secret_ciphertext: string;
  enabled: number;
  created_at: number;
  updated_at: number;
}

/**
 * One event for one subscription, waiting for (or done with) delivery: the signed body is fixed when
 * the event happens; the signature is made at each attempt. Never holds a PIN or a full destination.
 */
export interface EventOutboxTable {
  id: string;
  account_id: string;
  subscription_id: string;
  event_type: string;
  pin_id: string;
  /** The JSON body sent, byte for byte on every attempt. */
  payload: string;
  /** pending | done | failed | cancelled */
  state: string;
  attempts: number;
  next_attempt_at: number;
  lease_until: number;
  /** The node (TWOFA_NODE_ID) that claimed the event last. */
  lease_holder: LeaseHolder;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

/** Anti-fraud settings of an application (JSON of SecuritySettings); no row: the defaults, all off. */
export interface SecuritySettingsTable {
  application_id: string;
  account_id: string;
  settings: string;
  updated_at: number;
}

/** A temporary block tripped by the conversion breaker; `scope` is e.g. `country:XX`. */
export interface SecurityBlocksTable {
  application_id: string;
  scope: string;
  blocked_until: number;
  reason: string;
  created_at: number;
}

/** Sends and verifications per application, destination country and time bucket (conversion breaker). */
export interface ConversionCountsTable {
  application_id: string;
  country: string;
  bucket_start: number;
  sends: number;
  verifies: number;
}

/** An application's risk mode and thresholds; an application without a row has the defaults (enforce). */
export interface RiskSettingsTable {
  application_id: string;
  account_id: string;
  mode: string;
  block_score: number;
  /** JSON object: country -> threshold. */
  country_block_scores: string;
  updated_at: number;
}

/** The risk score's counters: hits per application, counter key and time bucket. */
export interface RiskCountersTable {
  application_id: string;
  counter: string;
  bucket_start: number;
  hits: number;
}

/**
 * Written on SQLite only (empty on PostgreSQL): the recent window's risk counters hit, a row per write
 * (about a second's hits), application and bucket (a JSON list of the counters hit, once per hit; or,
 * as migration 0037 moved them, an object of counter -> hits), what the process's in-memory counters
 * of the last hour are rebuilt from (sqlite/risk-statements.ts).
 */
export interface RiskRecentHitsTable {
  bucket_start: number;
  application_id: string;
  counters: string;
}

/** Risk decisions recorded: every block and shadow block, a sample of the sends allowed. */
export interface RiskDecisionsTable {
  id: string;
  account_id: string;
  application_id: string;
  pin_id: string | null;
  kind: string;
  created_at: number;
  destination: string;
  country: string | null;
  score: number;
  threshold: number;
  decision: string;
  mode: string;
  safe_listed: number;
  /** JSON array of the signals (name, weight, points, value). */
  signals: string;
  /** A block's or shadow block's estimated price of the message (micro-units); null: none (no price list, an email, an allowed send). */
  price_micros: number | null;
  price_currency: string | null;
}

/** The audit log: per account a chain, each entry's hash covering the previous entry's hash. */
export interface AuditLogTable {
  account_id: string;
  seq: number;
  at: number;
  event: string;
  application_id: string | null;
  pin_id: string | null;
  /** Masked, never the full destination. */
  destination: string | null;
  source_ip: string | null;
  /** Id of the API key that acted, or the component (e.g. "delivery"). */
  actor: string | null;
  reason: string | null;
  prev_hash: string;
  /** `<keyId>:<HMAC-SHA256>` of the entry and prev_hash, keyed from TWOFA_SECRET. */
  hash: string;
}

/**
 * The newest signed head of each account's audit chain (src/store/audit-head-store.ts): its last
 * entry's seq and hash, signed with a key derived from TWOFA_SECRET, so that a chain shorter than its
 * head, or one rewritten past it, is detected.
 */
export interface AuditHeadsTable {
  account_id: string;
  seq: number;
  hash: string;
  signed_at: number;
  /** `<keyId>:<HMAC-SHA256>` of the head (domain/audit-head.ts). */
  signature: string;
}

/** A request made with an Idempotency-Key and, once answered, its answer (src/store/idempotency-store.ts). */
export interface IdempotencyKeysTable {
  /** Hex SHA-256 of the account id and the key: one row per key per account, the key itself not kept. */
  id: string;
  account_id: string;
  /** Hex SHA-256 of method, path and body of the request that used the key first. */
  fingerprint: string;
  /** Random token of the request holding the key (a holder's writes check it, so a taken-over lease is not overwritten). */
  lease_token: string;
  /** While unanswered: until when the holder is presumed alive; after that another request may take the key over. */
  lease_until: number;
  /** The answer's HTTP status; null while the request is running. */
  status: number | null;
  /** `<keyId>:<AES-GCM>` of the answer (headers and body), under a key derived from TWOFA_SECRET. */
  answer: string | null;
  created_at: number;
  /** End of the key's window: it is forgotten (purged) after it. */
  expires_at: number;
}

export interface PinWorkflowStepsTable {
  pin_id: string;
  step: number;
  account_id: string;
  channel: string;
  /** scheduled, running (claimed), sent, skipped or cancelled. */
  state: string;
  due_at: number | null;
  claim: string | null;
  lease_until: number | null;
  reason: string | null;
  updated_at: number;
}

/** The price of each message a transport took (migration 0032): one row per message, by its delivery id. */
export interface MessagePricesTable {
  delivery_id: string;
  pin_id: string;
  account_id: string;
  application_id: string;
  channel: string;
  /** The transport that took the message (a route's member). */
  transport: string;
  /** ISO country of the destination (the price line's, else the number's); null for email. */
  country: string | null;
  /** The price line's prefix; null: a country-wide line, or no line. */
  prefix: string | null;
  at: number;
  /** SMS parts (1 for any other channel): the price is per part. */
  segments: number;
  /** Micro-units of `currency` for the whole message; null: no known price. */
  amount: number | null;
  currency: string | null;
  /** list (the price list), provider (the provider's answer or receipt) or none. */
  source: string;
  provider_message_id: string | null;
}

/** A budget: an application's (application_id) or, with application_id '', its account's. */
export interface BudgetsTable {
  account_id: string;
  application_id: string;
  currency: string;
  /** JSON of BudgetCaps (domain/budgets.ts), amounts in micro-units. */
  caps: string;
  updated_at: number;
}

/** What one budget period has spent, in micro-units: counted in the PIN's own write (store/budget-spend.ts). */
export interface BudgetSpendTable {
  key: string;
  period_start: number;
  spent: number;
  expires_at: number;
  /** 1 once the budget.threshold event of 100 % went out for this period. */
  full_notified: Generated<number>;
}

export interface RouteDeliveriesTable {
  pin_id: string;
  transport: string;
  country: string;
  bucket_start: number;
}

export interface RouteConversionsTable {
  transport: string;
  country: string;
  bucket_start: number;
  sent: number;
  verified: number;
}

export interface ApplicationSendersTable {
  application_id: string;
  country: string;
  account_id: string;
  sender_id: string;
  kind: string;
  updated_at: number;
}
