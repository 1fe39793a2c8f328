// The one error a call throws when the server answers with a non-2xx status (or an unusable body).
// Network failures and timeouts are not answers: they keep fetch's own errors (TypeError,
// DOMException "TimeoutError"), so a caller can tell "the service said no" from "no answer".

export interface TwofaApiErrorDetails {
  status: number;
  messageId: string;
  text: string;
  validationErrors?: Record<string, string[]> | undefined;
  retryAfterSeconds?: number | undefined;
  requestId?: string | undefined;
}

export class TwofaApiError extends Error {
  /** HTTP status of the answer. */
  readonly status: number;
  /** Infobip's error code: BAD_REQUEST, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, TOO_MANY_REQUESTS, GENERAL_ERROR... */
  readonly messageId: string;
  /** The server's description of the failure. */
  readonly text: string;
  /** Messages per invalid field (`configuration.pinTimeToLive`, `to`...), when the server named them. */
  declare readonly validationErrors?: Record<string, string[]>;
  /** From `Retry-After` (429): seconds to wait before the same request can succeed. */
  declare readonly retryAfterSeconds?: number;
  /** From `X-Request-ID`: quote it when asking an operator to look a failure up in the logs. */
  declare readonly requestId?: string;

  constructor(details: TwofaApiErrorDetails) {
    super(`${details.status} ${details.messageId}: ${details.text}`);
    this.name = 'TwofaApiError';
    this.status = details.status;
    this.messageId = details.messageId;
    this.text = details.text;
    // Absent details stay absent keys (the optional fields are `declare`d, so no class field
    // initialises them to undefined): `'retryAfterSeconds' in error` means the server sent one.
    if (details.validationErrors !== undefined) this.validationErrors = details.validationErrors;
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
    if (details.requestId !== undefined) this.requestId = details.requestId;
  }
}

/**
 * `Retry-After` is either delay-seconds or an HTTP date (RFC 9110 §10.2.3); both become whole seconds
 * from now, never negative. Anything else is ignored rather than guessed at.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

function isStringArrayRecord(value: unknown): value is Record<string, string[]> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((v) => Array.isArray(v) && v.every((m) => typeof m === 'string'));
}

/** Longest piece of a non-JSON body quoted in the error text (an HTML error page can be large). */
const MAX_QUOTED_BODY = 200;

/**
 * Builds the error for a failed answer from Infobip's envelope
 * `{"requestError":{"serviceException":{"messageId","text","validationErrors"?}}}`. A body that is not
 * that envelope (a proxy's HTML page, an empty 502) still yields a TwofaApiError, with messageId
 * GENERAL_ERROR and the real status, so callers handle one error type.
 */
export function errorFromResponse(status: number, headers: Headers, bodyText: string): TwofaApiError {
  const common = {
    status,
    retryAfterSeconds: parseRetryAfter(headers.get('retry-after')),
    requestId: headers.get('x-request-id') ?? undefined,
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    parsed = undefined;
  }
  const exception = (parsed as { requestError?: { serviceException?: Record<string, unknown> } } | undefined)?.requestError?.serviceException;
  if (exception && typeof exception['messageId'] === 'string') {
    return new TwofaApiError({
      ...common,
      messageId: exception['messageId'],
      text: typeof exception['text'] === 'string' ? exception['text'] : '',
      validationErrors: isStringArrayRecord(exception['validationErrors']) ? exception['validationErrors'] : undefined,
    });
  }
  const quoted = bodyText.trim().slice(0, MAX_QUOTED_BODY);
  return new TwofaApiError({ ...common, messageId: 'GENERAL_ERROR', text: quoted === '' ? `HTTP ${status} without an error body` : `HTTP ${status}: ${quoted}` });
}
