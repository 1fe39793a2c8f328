// Table shapes as Kysely sees them. Portable across SQLite and PostgreSQL: text ids made by the
// application, times as integer epoch milliseconds, booleans as 0/1 integers, JSON as text.
import type { Generated } from 'kysely';

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

export interface PinsTable {
  id: string;
  account_id: string;
  application_id: string;
  message_id: string;
  channel: 'sms' | 'voice' | 'email';
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
}

export interface OutboxTable {
  id: string;
  pin_id: string;
  account_id: string;
  channel: 'sms' | 'voice' | 'email';
  /** JSON: placeholders and sender override of the request; never the PIN or rendered text. */
  request: string;
  /** pending | done | failed | cancelled */
  state: string;
  attempts: number;
  next_attempt_at: number;
  lease_until: number;
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
  audit_log: AuditLogTable;
  audit_heads: AuditHeadsTable;
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
