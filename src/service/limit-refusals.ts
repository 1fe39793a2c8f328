// The limits the services check with their writes, each carrying the failure it ends in, and the
// answer to a refusal: which limit refused is read from the check, never out of its key.
import { fail, type LimitFailureName } from '../domain/errors.js';
import type { RateLimitCheck, RateLimitOutcome } from '../store/store.js';

export interface NamedLimit extends RateLimitCheck {
  reason: LimitFailureName;
}

const REFUSAL_TEXT: Record<LimitFailureName, string> = {
  SEND_LIMIT_APPLICATION: 'sendPinPerApplicationLimit reached for this application',
  SEND_LIMIT_DESTINATION: 'sendPinPerPhoneNumberLimit reached for this destination',
  VERIFY_LIMIT: 'verifyPinLimit reached for this destination',
  GUARD_IP_LIMIT: 'perIpSendLimit reached for this client address',
  GUARD_PREFIX_LIMIT: 'perPrefixSendLimit reached for this number range',
  SERVICE_RATE_LIMIT: 'a rate limit bucket of this service is full',
};

/** The limit among `limits` that refused, as the store's outcome names it. */
export function refusingLimit(limits: readonly NamedLimit[], outcome: Extract<RateLimitOutcome, { allowed: false }>): NamedLimit {
  const limit = limits.find((l) => l.key === outcome.key);
  if (!limit) throw new Error('the store refused a limit that the request did not check');
  return limit;
}

export function tooManyRequests(reason: LimitFailureName, outcome: Extract<RateLimitOutcome, { allowed: false }>) {
  return fail(reason, `Too many requests: ${REFUSAL_TEXT[reason]}; retry in ${Math.ceil(outcome.retryAfterMs / 1000)} s`, { retryAfterMs: outcome.retryAfterMs });
}
