// Every failure leaves the service in its dialect's error body, chosen here and nowhere else:
// Infobip's envelope everywhere but under /v2,
// {"requestError":{"serviceException":{"messageId":"BAD_REQUEST","text":"...","validationErrors":{...}}}},
// Twilio's {"code":20404,"message":"...","more_info":"https://www.twilio.com/docs/errors/20404","status":404}
// under /v2 (the Twilio Verify dialect), and Prelude's {"code":"invalid_phone_number","message":"...",
// "type":"bad_request","param":"target.value","request_id":"..."} under /v2/verification (Prelude
// Verify), and Vonage's RFC 7807 problem {"type":"https://developer.vonage.com/...","title":"...",
// "detail":"...","instance":"..."} under /v2/verify (Vonage Verify, routes/vonage/vonage-errors.ts).
// The status of each failure is in failure-statuses.ts (Vonage's own in vonage-errors.ts).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Failure, FailureName, Result, ValidationErrors } from '../domain/errors.js';
import { DatabaseUnavailableError } from '../store/store.js';
import { messageIdOf, statusOf, type InfobipMessageId } from './failure-statuses.js';
import { PRELUDE_CODE_BY_FAILURE, preludeErrorType } from './routes/prelude/prelude-errors.js';
import { TWILIO_CODE_BY_FAILURE } from './routes/twilio/twilio-errors.js';
import { vonageProblem, vonageStatusOf } from './routes/vonage/vonage-errors.js';

export type Dialect = 'infobip' | 'twilio' | 'prelude' | 'vonage';

/** Prelude's paths under /v2, all lower-case (Twilio's are capitalised: /v2/Services). */
const PRELUDE_PATH = /^\/v2\/(verification|watch|lookup|transactional|notify)(\/|\?|$)/;
/** Vonage Verify's, lower-case too: /v2/verify and below (never Prelude's /v2/verification). */
const VONAGE_PATH = /^\/v2\/verify(\/|\?|$)/;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The wire dialect of the route (absent: Infobip's, as every route but /v2's). */
    dialect?: Dialect;
  }
}

/** The dialect a path (a URL, or a route's path template) belongs to. */
export function dialectOfPath(path: string): Dialect {
  if (PRELUDE_PATH.test(path)) return 'prelude';
  if (VONAGE_PATH.test(path)) return 'vonage';
  return /^\/v2(\/|\?|$)/.test(path) ? 'twilio' : 'infobip';
}

/** Routes say their dialect; a request that matched none (404, a bad URL) is told by its path. */
export function dialectOf(request: FastifyRequest): Dialect {
  const declared = (request.routeOptions as { config?: { dialect?: Dialect } } | undefined)?.config?.dialect;
  return declared ?? dialectOfPath(request.url);
}

export const ErrorEnvelopeSchema = Type.Object({
  requestError: Type.Object({
    serviceException: Type.Object({
      messageId: Type.String(),
      text: Type.String(),
      validationErrors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
    }),
  }),
}, { title: 'ApiException' });

export function envelope(messageId: InfobipMessageId, text: string, validationErrors?: ValidationErrors) {
  return { requestError: { serviceException: { messageId, text, ...(validationErrors ? { validationErrors } : {}) } } };
}

export const TwilioErrorSchema = Type.Object({
  code: Type.Integer({ description: 'Twilio\'s error code (20404, 60200, 60202, ...).' }),
  message: Type.String(),
  more_info: Type.String({ description: 'Twilio\'s page about the code.' }),
  status: Type.Integer({ description: 'The HTTP status, repeated.' }),
}, { title: 'TwilioError' });

export function twilioError(status: number, code: number, message: string) {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
}

export const PreludeErrorSchema = Type.Object({
  code: Type.String({ description: 'Prelude\'s machine-readable error code (invalid_phone_number, invalid_bearer_token, ...).' }),
  message: Type.String(),
  type: Type.String({ description: 'The class of the status: bad_request, unauthorized, not_found, too_many_requests, ...' }),
  param: Type.Optional(Type.String({ description: 'The request field at fault, as a path (target.value).' })),
  request_id: Type.String(),
}, { title: 'PreludeError' });

/** Twilio names the first wrong parameter: "Invalid parameter: To". */
function twilioMessage(failure: Failure): string {
  const field = failure.validationErrors ? Object.keys(failure.validationErrors)[0] : undefined;
  return field !== undefined && failure.name === 'INVALID_REQUEST' ? `Invalid parameter: ${field}` : failure.text;
}

function preludeError(failure: Failure, requestId: string) {
  const param = failure.validationErrors ? Object.keys(failure.validationErrors)[0] : undefined;
  const status = statusOf(failure.name);
  return {
    code: failure.dialectCode ?? PRELUDE_CODE_BY_FAILURE[failure.name], message: failure.text, type: preludeErrorType(status),
    ...(param !== undefined ? { param } : {}), request_id: requestId,
  };
}

/** The body of a failure in the dialect's shape. */
export function errorBody(dialect: Dialect, failure: Failure, requestId = '') {
  if (dialect === 'infobip') return envelope(messageIdOf(failure.name), failure.text, failure.validationErrors);
  if (dialect === 'prelude') return preludeError(failure, requestId);
  if (dialect === 'vonage') return vonageProblem(failure, requestId);
  return twilioError(statusOf(failure.name), TWILIO_CODE_BY_FAILURE[failure.name], twilioMessage(failure));
}

/**
 * Prelude's SDK repeats a request answered 408, 409, 429 or 5xx unless told not to. A 429 here
 * refused the request before it did anything (and says when to come back): repeating it is what it
 * asks, and so is a 503 DATABASE_UNAVAILABLE, answered only when nothing committed. Any other 409 or
 * 5xx may come after a send or a counted attempt, which a repeat must not double.
 */
function preludeMayRepeat(failure: Failure, status: number): boolean {
  return failure.name === 'DATABASE_UNAVAILABLE' || (status !== 409 && status < 500);
}

export function sendFailure(reply: FastifyReply, failure: Failure) {
  if (failure.retryAfterMs !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(failure.retryAfterMs / 1000))));
  const dialect = dialectOf(reply.request);
  if (dialect === 'vonage') return reply.code(vonageStatusOf(failure)).type(VONAGE_PROBLEM_TYPE).send(errorBody(dialect, failure, reply.request.id));
  const status = statusOf(failure.name);
  if (dialect === 'prelude' && !preludeMayRepeat(failure, status)) reply.header('x-should-retry', 'false');
  return reply.code(status).send(errorBody(dialect, failure, reply.request.id));
}

/** Answers a service result: the mapped value on success, the envelope on failure. */
export function respond<T, R>(reply: FastifyReply, result: Result<T>, present: (value: T) => R): R | FastifyReply {
  if (!result.ok) return sendFailure(reply, result.failure);
  return present(result.value);
}

/** The same for a route that answers 201 Created (Twilio's creates). */
export function respondCreated<T, R>(reply: FastifyReply, result: Result<T>, present: (value: T) => R): FastifyReply {
  if (!result.ok) return sendFailure(reply, result.failure);
  return reply.code(201).send(present(result.value));
}

/** The same for a route that answers 204 and no body (deletes, revocations). */
export function respondNoContent(reply: FastifyReply, result: Result<unknown>): FastifyReply {
  if (!result.ok) return sendFailure(reply, result.failure);
  return reply.code(204).send(null);
}

/** Response schemas of the error statuses a route can answer, for serialisation and OpenAPI. */
export function errorResponses(...statuses: number[]) {
  const responses: Record<number, typeof ErrorEnvelopeSchema> = {};
  for (const status of [...statuses, 500, 503]) responses[status] = ErrorEnvelopeSchema;
  return responses;
}

/** The same for a route of the Prelude dialect. */
export function preludeErrorResponses(...statuses: number[]) {
  const responses: Record<number, typeof PreludeErrorSchema> = {};
  for (const status of [...statuses, 500]) responses[status] = PreludeErrorSchema;
  return responses;
}

export const VonageProblemSchema = Type.Object({
  type: Type.String({ description: 'A page of Vonage\'s error catalogue (…/api-errors/verify-v2#invalid-code, ...).' }),
  title: Type.String(),
  detail: Type.String(),
  instance: Type.String({ description: 'The id of this request.' }),
  request_id: Type.Optional(Type.String({ description: 'On a 409: the verification already in flight to the number.' })),
  invalid_parameters: Type.Optional(Type.Array(Type.Object({ name: Type.String(), reason: Type.String() }), { description: 'On a 422: each parameter refused.' })),
}, { title: 'VonageProblem' });

/** Vonage's problems are application/problem+json (RFC 7807), not application/json. */
export const VONAGE_PROBLEM_TYPE = 'application/problem+json';

/** What each status of the Vonage dialect means (Vonage's own meanings where they differ from twofa's). */
const VONAGE_ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'A wrong code (counted; attempts remain), or a body that is not JSON.',
  401: 'No credentials, or not a Vonage application\'s valid JWT nor a valid api_key:api_secret pair.',
  403: 'The credentials lack the 2fa:pin:send scope.',
  404: 'No such request in the application (unknown, canceled, or verified already), or no such template or fragment.',
  409: 'A verification to this number is in flight (`request_id` names it), no workflow channel is left to trigger, or a template conflict (a name or a fragment\'s channel and locale taken, fragments left, ten templates).',
  410: 'Too many wrong codes, or the request expired: the workflow is terminated.',
  413: 'The request body is larger than the configured limit (TWOFA_BODY_LIMIT).',
  415: 'The request body is not application/json.',
  422: 'Invalid parameters: `invalid_parameters` names each.',
  429: 'A rate limit was reached; `Retry-After` gives the seconds to wait.',
  500: 'Unexpected failure; the body never carries details.',
  503: 'The database is unreachable and nothing was written: retry after `Retry-After` seconds.',
};

/** The same for a route of the Vonage dialect, declared under its media type. */
export function vonageErrorResponses(...statuses: number[]) {
  const responses: Record<number, { description: string; content: Record<string, { schema: typeof VonageProblemSchema }> }> = {};
  for (const status of [...statuses, 500, 503]) {
    responses[status] = { description: VONAGE_ERROR_DESCRIPTIONS[status] ?? 'An error.', content: { [VONAGE_PROBLEM_TYPE]: { schema: VonageProblemSchema } } };
  }
  return responses;
}

/** The same for a route of the Twilio dialect. */
export function twilioErrorResponses(...statuses: number[]) {
  const responses: Record<number, typeof TwilioErrorSchema> = {};
  for (const status of [...statuses, 500, 503]) responses[status] = TwilioErrorSchema;
  return responses;
}

/** "body/configuration/pinAttempts" style Ajv paths become Infobip's "configuration.pinAttempts". */
function fieldOf(error: { instancePath?: string; params?: Record<string, unknown> }, context: string | undefined): string {
  const path = (error.instancePath ?? '').split('/').filter((p) => p.length > 0);
  const missing = error.params?.['missingProperty'];
  if (typeof missing === 'string') path.push(missing);
  if (path.length === 0) return context ?? 'body';
  return path.join('.');
}

function describeValidation(error: { keyword?: string; message?: string; params?: Record<string, unknown> }): string {
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'type') return `must be ${String(error.params?.['type'] ?? 'of another type')}`;
  if (error.keyword === 'anyOf' || error.keyword === 'enum') return 'is not one of the allowed values';
  return error.message ?? 'is invalid';
}

/**
 * The answer while the database is unreachable. Retry-After: a client retrying sooner would only
 * queue on the same bounded waits (TWOFA_DATABASE_CONNECT_TIMEOUT, 5 s by default).
 */
const DATABASE_UNAVAILABLE: Failure = { name: 'DATABASE_UNAVAILABLE', text: 'Service unavailable. Please try again later.', retryAfterMs: 5_000 };

const FRAMEWORK_ERRORS: Record<string, Failure> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { name: 'BODY_TOO_LARGE', text: 'Request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { name: 'UNSUPPORTED_MEDIA_TYPE', text: 'Unsupported content type: send application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { name: 'MALFORMED_REQUEST', text: 'Request body does not match its Content-Length' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { name: 'MALFORMED_REQUEST', text: 'Request body is empty' },
  FST_ERR_CTP_INVALID_JSON_BODY: { name: 'MALFORMED_REQUEST', text: 'Request body is not valid JSON' },
};

/** Client-error statuses that Fastify throws without a code of FRAMEWORK_ERRORS, as failures of the catalogue. */
const FAILURE_BY_STATUS: Partial<Record<number, FailureName>> = { 404: 'ROUTE_NOT_FOUND', 413: 'BODY_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE' };

/** Thrown by a hook (idempotency keys) to end the request in a failure of the catalogue. */
export class FailureError extends Error {
  constructor(readonly failure: Failure) {
    super(failure.text);
  }
}

export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.validation) {
    const validationErrors: ValidationErrors = {};
    for (const e of error.validation) {
      const field = fieldOf(e as never, error.validationContext);
      (validationErrors[field] ??= []).push(describeValidation(e as never));
    }
    const text = Object.entries(validationErrors).map(([f, m]) => `[${f} : ${m.join(', ')}]`).join(' ');
    return sendFailure(reply, { name: 'INVALID_REQUEST', text, validationErrors });
  }
  if (error instanceof FailureError) return sendFailure(reply, error.failure);
  const known = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
  if (known) return sendFailure(reply, known);
  if (error instanceof SyntaxError || (error.statusCode === 400 && !error.code)) {
    return sendFailure(reply, { name: 'MALFORMED_REQUEST', text: 'Request body is not valid JSON' });
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return sendFailure(reply, { name: FAILURE_BY_STATUS[error.statusCode] ?? 'MALFORMED_REQUEST', text: error.message || 'Bad request' });
  }
  if (error instanceof DatabaseUnavailableError) {
    // Nothing the request wrote was committed (store/postgres/open-postgres.ts decides): safe to retry.
    request.log.warn({ err: error.message }, 'database unavailable');
    return sendFailure(reply, DATABASE_UNAVAILABLE);
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendFailure(reply, { name: 'INTERNAL_ERROR', text: 'Something went wrong. Please contact support.' });
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0] ?? request.url;
  return sendFailure(reply, { name: 'ROUTE_NOT_FOUND', text: dialectOf(request) === 'infobip' ? `Requested URL not found: ${request.method} ${path}` : `The requested resource ${path} was not found` });
}
