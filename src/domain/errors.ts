// The closed catalogue of failures a request can end in. Services return them as values; the HTTP
// layer maps each code to its status in one place (src/http/error-envelope.ts). The codes are
// Infobip's `messageId`s where Infobip has one.
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNPROCESSABLE_ENTITY'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'TOO_MANY_REQUESTS'
  | 'GENERAL_ERROR';

export type ValidationErrors = Record<string, string[]>;

export interface Failure {
  readonly code: ErrorCode;
  readonly text: string;
  readonly validationErrors?: ValidationErrors;
  /** For TOO_MANY_REQUESTS: when the request would be accepted again. */
  readonly retryAfterMs?: number;
  /** A finer cause that a dialect reports with a code of its own (Twilio's 60203, 60202, 60221, 6020x). */
  readonly reason?: FailureReason;
}

export type FailureReason = 'max_send_attempts' | 'max_check_attempts' | 'no_verification_target'
  | 'too_many_rate_limits' | 'rate_limit_exists' | 'rate_limit_name_invalid' | 'too_many_buckets' | 'bucket_interval_exists'
  | 'destination_blocked' | 'messaging_configuration_exists' | 'invalid_event_types'
  | 'concurrent_start' | 'psd2_required' | 'psd2_call';

export type Result<T> = { ok: true; value: T } | { ok: false; failure: Failure };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail(code: ErrorCode, text: string, extra: { validationErrors?: ValidationErrors; retryAfterMs?: number; reason?: FailureReason } = {}): { ok: false; failure: Failure } {
  return { ok: false, failure: { code, text, ...extra } };
}

/** A 400 whose text summarises the field errors, as Infobip's texts do ("[field : message]"). */
export function invalid(validationErrors: ValidationErrors): { ok: false; failure: Failure } {
  const text = Object.entries(validationErrors).map(([field, messages]) => `[${field} : ${messages.join(', ')}]`).join(' ');
  return fail('BAD_REQUEST', text || 'Bad request', { validationErrors });
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
