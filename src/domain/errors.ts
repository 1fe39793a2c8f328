// The closed catalogue of failures a request can end in, each named once here. Services return them
// as values (Result); what a failure is on the wire (its HTTP status, Infobip's messageId, Twilio's
// code) is the HTTP layer's, in one table per dialect (http/failure-statuses.ts,
// http/routes/twilio/twilio-errors.ts). docs/api.md lists every name (test/unit/failure-catalogue.test.ts).
export const FAILURE_NAMES = [
  // The request itself
  'INVALID_REQUEST', // a field is missing, of the wrong type or invalid: validationErrors names it
  'MALFORMED_REQUEST', // a body that is not JSON, empty, or shorter than its Content-Length; a URL that does not decode
  'BODY_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'ROUTE_NOT_FOUND',
  'INTERNAL_ERROR', // a bug or an infrastructure failure; the text never carries details
  'DATABASE_UNAVAILABLE', // the database is unreachable or did not answer in time, and nothing was written: retry after Retry-After
  // Authentication
  'UNAUTHENTICATED',
  'AUTH_THROTTLED', // too many failed authentications from this address or with this key prefix
  'SCOPE_MISSING',
  // Idempotency keys
  'IDEMPOTENCY_KEY_INVALID',
  'IDEMPOTENCY_KEY_REUSED', // the key came with another request
  'IDEMPOTENCY_KEY_RUNNING', // the request holding the key is still running
  'IDEMPOTENCY_ANSWER_UNREADABLE', // stored under a secret that is no longer configured
  'IDEMPOTENCY_ANSWER_NOT_KEPT', // the request was done; its answer was too large to keep
  'IDEMPOTENCY_KEYS_FULL', // the account holds TWOFA_IDEMPOTENCY_MAX_KEYS keys within their window
  // Resources of the account
  'APPLICATION_NOT_FOUND',
  'MESSAGE_NOT_FOUND',
  'MESSAGE_KIND_MISMATCH', // an email message updated as SMS/voice, or the reverse
  'EMAIL_TEMPLATE_NOT_FOUND',
  'TEMPLATE_TEXT_NOT_FOUND', // a locale text (Vonage: template fragment) the message template does not have
  'TEMPLATE_TEXT_EXISTS', // a second text of one locale and channel
  'TEMPLATE_NOT_EMPTY', // deleting a template that still holds locale texts (Vonage's not-empty-template)
  'TEMPLATE_NAME_EXISTS', // a second template of one name in the application
  'TEMPLATE_LIMIT_REACHED', // named templates beyond the application's maximum
  'EMAIL_TEMPLATE_IN_USE',
  'WEBHOOK_NOT_FOUND',
  'WEBHOOK_LIMIT_REACHED',
  'API_KEY_NOT_FOUND',
  'ACCOUNT_NOT_FOUND',
  'API_KEY_SELF_REVOKE',
  'TEST_NUMBERS_NOT_ALLOWED', // under the strict security profile, unless the operator allows them
  'TEST_NUMBER_LIMIT_REACHED',
  'TEST_NUMBER_EXISTS',
  'TEST_NUMBER_NOT_FOUND',
  'SENDER_NOT_FOUND', // an application without a sender of its own for that country
  // Routes (operator configuration)
  'ROUTES_NOT_CONFIGURED', // no named transports (TWOFA_TRANSPORT_<NAME>): there is no routes table
  'ROUTES_INVALID', // a reload found the configured routes table invalid: refused whole, the current one stays
  // PINs
  'PIN_NOT_FOUND',
  'PIN_ENDED', // verified, expired or out of attempts: it can no longer be resent
  'RESEND_CHANNEL_MISMATCH', // a PIN sent to a phone resent by email, or the reverse
  'RESEND_INTO_INBOX', // would copy a PIN that went to a real phone into the local inbox
  // Limits (429 with Retry-After)
  'SEND_LIMIT_APPLICATION',
  'SEND_LIMIT_DESTINATION',
  'VERIFY_LIMIT',
  'GUARD_IP_LIMIT',
  'GUARD_PREFIX_LIMIT',
  'GUARD_CONVERSION_BREAKER',
  'DESTINATION_BLOCKED', // by the application's security settings (countries, prefixes, premium numbers)
  'RISK_BLOCKED', // the send's risk score reached the application's threshold (likely SMS pumping)
  'BUDGET_EXCEEDED', // the send's price would take a budget cap of the application or account past its amount for the day or month
  // Provider callbacks
  'CALLBACK_TRANSPORT_UNKNOWN',
  'CALLBACK_UNAUTHENTICATED',
  'CALLBACK_MALFORMED',
  // The Twilio Verify dialect
  'RESOURCE_NOT_FOUND', // a Service, Verification, Attempt, Safe List number, rate limit or messaging configuration
  'SEND_ATTEMPTS_EXHAUSTED',
  'CHECK_ATTEMPTS_EXHAUSTED',
  'NO_VERIFICATION_TARGET',
  'SERVICE_RATE_LIMIT', // a bucket of the service's own rate limits is full
  'RATE_LIMITS_FULL',
  'RATE_LIMIT_EXISTS',
  'RATE_LIMIT_NAME_INVALID',
  'BUCKETS_FULL',
  'BUCKET_INTERVAL_EXISTS',
  'MESSAGING_CONFIGURATION_EXISTS',
  'CONCURRENT_START', // a second start to the same destination of a Service while one is under way
  'PSD2_REQUIRED', // a PSD2 Service's verification without Amount and Payee
  'PSD2_CALL', // a PSD2 verification on the call channel
  'WEBHOOK_EVENT_TYPES_INVALID',
  'SERVICE_WEBHOOKS_FULL',
  // Twilio Verify's Entities, Factors and Challenges (docs/factors.md)
  'FACTOR_REQUEST_INVALID', // a parameter of these resources Twilio answers 60306 for
  'ENTITY_NOT_FOUND',
  'FACTOR_NOT_FOUND',
  'CHALLENGE_NOT_FOUND',
  'FACTOR_UNVERIFIED', // a challenge of a factor whose verification is not done
  'CHALLENGE_EXPIRED',
  'CHALLENGE_ENDED', // approved or denied already: nothing more can be answered
  'FACTOR_ATTEMPTS_EXHAUSTED', // the factor's verification took its 5 wrong codes
  'CHALLENGE_ATTEMPTS_EXHAUSTED', // the challenge took its 5 wrong codes
  'FACTOR_CODE_LIMIT', // codes checked against one factor across its challenges: the brute-force window is full
  // Passkeys (WebAuthn)
  'PASSKEYS_CRITERIA_MISSING', // no authenticator attachment, discoverable credentials or user verification, from the request or the Service
  'PASSKEY_REGISTRATION_REFUSED', // an attestation that does not answer a waiting registration, or fails its checks (origin, relying party, ...)
  'PASSKEY_ASSERTION_REFUSED', // an assertion that does not answer a pending challenge, or fails its checks (origin, signature, counter, ...)
] as const;

export type FailureName = (typeof FAILURE_NAMES)[number];

/** The failures of a limit: a refused check names one, so nobody reads the reason out of its key. */
export type LimitFailureName = Extract<FailureName, 'SEND_LIMIT_APPLICATION' | 'SEND_LIMIT_DESTINATION' | 'VERIFY_LIMIT' | 'GUARD_IP_LIMIT' | 'GUARD_PREFIX_LIMIT' | 'SERVICE_RATE_LIMIT'>;

export type ValidationErrors = Record<string, string[]>;

export interface Failure {
  readonly name: FailureName;
  /** For the caller: what went wrong with this request, naming the resource or field. */
  readonly text: string;
  readonly validationErrors?: ValidationErrors;
  /** For a limit: when the request would be accepted again. */
  readonly retryAfterMs?: number;
  /** A dialect's own code for this failure, where its catalogue is finer than ours (Prelude's `invalid_code_size`). */
  readonly dialectCode?: string;
  /** Members a dialect's error body carries beside its own (Vonage's `request_id` of the verification in flight). */
  readonly dialectFields?: Readonly<Record<string, string>>;
}

export type Result<T> = { ok: true; value: T } | { ok: false; failure: Failure };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail(name: FailureName, text: string, extra: { validationErrors?: ValidationErrors; retryAfterMs?: number; dialectCode?: string; dialectFields?: Record<string, string> } = {}): { ok: false; failure: Failure } {
  return { ok: false, failure: { name, text, ...extra } };
}

export function pinNotFound(pinId: string) {
  return fail('PIN_NOT_FOUND', `PIN ${pinId} not found`);
}

/** A 400 whose text summarises the field errors, as Infobip's texts do ("[field : message]"). */
export function invalid(validationErrors: ValidationErrors): { ok: false; failure: Failure } {
  const text = Object.entries(validationErrors).map(([field, messages]) => `[${field} : ${messages.join(', ')}]`).join(' ');
  return fail('INVALID_REQUEST', text || 'Bad request', { validationErrors });
}

/** Collects field errors while a service checks a request. */
export class FieldErrors {
  private readonly errors: ValidationErrors = {};

  add(field: string, message: string | null | undefined): void {
    if (!message) return;
    (this.errors[field] ??= []).push(message);
  }

  merge(errors: ValidationErrors): void {
    for (const [field, messages] of Object.entries(errors)) for (const m of messages) this.add(field, m);
  }

  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  result(): { ok: false; failure: Failure } {
    return invalid(this.errors);
  }
}
