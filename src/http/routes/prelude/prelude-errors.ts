// Prelude's error code for each failure of the catalogue (domain/errors.ts), where the failure brings
// none of its own (Failure.dialectCode: `invalid_code_size`, `template_not_found`, ...). Prelude
// publishes codes, not their statuses: the statuses are the catalogue's (failure-statuses.ts).
import type { FailureName } from '../../../domain/errors.js';

const BAD_REQUEST = 'invalid_request';

export const PRELUDE_CODE_BY_FAILURE: Record<FailureName, string> = {
  INVALID_REQUEST: BAD_REQUEST,
  MALFORMED_REQUEST: BAD_REQUEST,
  BODY_TOO_LARGE: BAD_REQUEST,
  UNSUPPORTED_MEDIA_TYPE: BAD_REQUEST,
  ROUTE_NOT_FOUND: 'not_found',
  INTERNAL_ERROR: 'internal',
  DATABASE_UNAVAILABLE: 'internal',
  UNAUTHENTICATED: 'invalid_bearer_token',
  AUTH_THROTTLED: 'too_many_requests',
  SCOPE_MISSING: 'forbidden',
  IDEMPOTENCY_KEY_INVALID: BAD_REQUEST,
  IDEMPOTENCY_KEY_REUSED: BAD_REQUEST,
  IDEMPOTENCY_KEY_RUNNING: 'conflict',
  IDEMPOTENCY_ANSWER_UNREADABLE: 'conflict',
  IDEMPOTENCY_ANSWER_NOT_KEPT: 'conflict',
  IDEMPOTENCY_KEYS_FULL: 'too_many_requests',
  APPLICATION_NOT_FOUND: 'not_found',
  MESSAGE_NOT_FOUND: 'template_not_found',
  MESSAGE_KIND_MISMATCH: BAD_REQUEST,
  EMAIL_TEMPLATE_NOT_FOUND: 'template_not_found',
  EMAIL_TEMPLATE_IN_USE: 'conflict',
  WEBHOOK_NOT_FOUND: 'not_found',
  WEBHOOK_LIMIT_REACHED: 'conflict',
  API_KEY_NOT_FOUND: 'not_found',
  ACCOUNT_NOT_FOUND: 'not_found',
  API_KEY_SELF_REVOKE: 'conflict',
  TEST_NUMBERS_NOT_ALLOWED: 'forbidden',
  TEST_NUMBER_LIMIT_REACHED: BAD_REQUEST,
  TEST_NUMBER_EXISTS: 'conflict',
  TEST_NUMBER_NOT_FOUND: 'not_found',
  PIN_NOT_FOUND: 'not_found',
  PIN_ENDED: BAD_REQUEST,
  RESEND_CHANNEL_MISMATCH: BAD_REQUEST,
  RESEND_INTO_INBOX: BAD_REQUEST,
  SEND_LIMIT_APPLICATION: 'too_many_requests',
  SEND_LIMIT_DESTINATION: 'too_many_requests',
  VERIFY_LIMIT: 'too_many_requests',
  GUARD_IP_LIMIT: 'too_many_requests',
  GUARD_PREFIX_LIMIT: 'too_many_requests',
  GUARD_CONVERSION_BREAKER: 'too_many_requests',
  DESTINATION_BLOCKED: 'blocked',
  RISK_BLOCKED: 'blocked',
  BUDGET_EXCEEDED: 'too_many_requests',
  CALLBACK_TRANSPORT_UNKNOWN: 'not_found',
  CALLBACK_UNAUTHENTICATED: 'invalid_bearer_token',
  CALLBACK_MALFORMED: BAD_REQUEST,
  RESOURCE_NOT_FOUND: 'not_found',
  SEND_ATTEMPTS_EXHAUSTED: 'too_many_requests',
  CHECK_ATTEMPTS_EXHAUSTED: 'too_many_requests',
  NO_VERIFICATION_TARGET: BAD_REQUEST,
  SERVICE_RATE_LIMIT: 'too_many_requests',
  RATE_LIMITS_FULL: BAD_REQUEST,
  RATE_LIMIT_EXISTS: 'conflict',
  RATE_LIMIT_NAME_INVALID: BAD_REQUEST,
  BUCKETS_FULL: BAD_REQUEST,
  BUCKET_INTERVAL_EXISTS: BAD_REQUEST,
  MESSAGING_CONFIGURATION_EXISTS: 'conflict',
  CONCURRENT_START: 'too_many_requests',
  PSD2_REQUIRED: BAD_REQUEST,
  PSD2_CALL: BAD_REQUEST,
  WEBHOOK_EVENT_TYPES_INVALID: BAD_REQUEST,
  SERVICE_WEBHOOKS_FULL: BAD_REQUEST,
};

/** Prelude's `type`: the class of the status, as its errors carry it beside the code. */
export function preludeErrorType(status: number): string {
  const types: Record<number, string> = { 400: 'bad_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 409: 'conflict', 413: 'bad_request', 415: 'bad_request', 422: 'unprocessable_entity', 429: 'too_many_requests' };
  return types[status] ?? 'internal';
}
