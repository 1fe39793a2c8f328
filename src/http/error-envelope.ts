// Every failure leaves the service in its dialect's error body, chosen here and nowhere else:
// Infobip's envelope everywhere but under /v2,
// {"requestError":{"serviceException":{"messageId":"BAD_REQUEST","text":"...","validationErrors":{...}}}},
// and Twilio's {"code":20404,"message":"...","more_info":"https://www.twilio.com/docs/errors/20404","status":404}
// under /v2 (the Twilio Verify dialect). The catalogue's codes map to HTTP statuses and wire codes here.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ErrorCode, Failure, FailureReason, Result, ValidationErrors } from '../domain/errors.js';

export type Dialect = 'infobip' | 'twilio';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The wire dialect of the route (absent: Infobip's, as every route but /v2's). */
    dialect?: Dialect;
  }
}

/** Routes say their dialect; a request that matched none (404, a bad URL) is told by its path. */
export function dialectOf(request: FastifyRequest): Dialect {
  const declared = (request.routeOptions as { config?: { dialect?: Dialect } } | undefined)?.config?.dialect;
  if (declared) return declared;
  return /^\/v2(\/|\?|$)/.test(request.url) ? 'twilio' : 'infobip';
}

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNPROCESSABLE_ENTITY: 422,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  GENERAL_ERROR: 500,
};

export const ErrorEnvelopeSchema = Type.Object({
  requestError: Type.Object({
    serviceException: Type.Object({
      messageId: Type.String(),
      text: Type.String(),
      validationErrors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
    }),
  }),
}, { title: 'ApiException' });

export function envelope(code: ErrorCode, text: string, validationErrors?: ValidationErrors) {
  return { requestError: { serviceException: { messageId: code, text, ...(validationErrors ? { validationErrors } : {}) } } };
}

export const TwilioErrorSchema = Type.Object({
  code: Type.Integer({ description: 'Twilio\'s error code (20404, 60200, 60202, ...).' }),
  message: Type.String(),
  more_info: Type.String({ description: 'Twilio\'s page about the code.' }),
  status: Type.Integer({ description: 'The HTTP status, repeated.' }),
}, { title: 'TwilioError' });

/** Twilio's code for each failure of the catalogue (Verify's own codes where it has them). */
const TWILIO_CODE_BY_CODE: Record<ErrorCode, number> = {
  BAD_REQUEST: 60200,
  UNAUTHORIZED: 20003,
  FORBIDDEN: 20403,
  NOT_FOUND: 20404,
  CONFLICT: 20409,
  UNPROCESSABLE_ENTITY: 60200,
  PAYLOAD_TOO_LARGE: 60200,
  UNSUPPORTED_MEDIA_TYPE: 60200,
  TOO_MANY_REQUESTS: 20429,
  GENERAL_ERROR: 20500,
};

const TWILIO_CODE_BY_REASON: Record<FailureReason, number> = {
  max_send_attempts: 60203,
  max_check_attempts: 60202,
  no_verification_target: 60221,
  too_many_rate_limits: 60207,
  rate_limit_exists: 60208,
  rate_limit_name_invalid: 60209,
  too_many_buckets: 60210,
  bucket_interval_exists: 60211,
  destination_blocked: 60605,
  messaging_configuration_exists: 60213,
  invalid_event_types: 60306,
  concurrent_start: 60212,
  psd2_required: 60206,
  psd2_call: 60214,
};

export function twilioError(status: number, code: number, message: string) {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
}

/** Twilio names the first wrong parameter: "Invalid parameter: To". */
function twilioMessage(failure: Failure): string {
  const field = failure.validationErrors ? Object.keys(failure.validationErrors)[0] : undefined;
  return field !== undefined && failure.code === 'BAD_REQUEST' && failure.reason === undefined ? `Invalid parameter: ${field}` : failure.text;
}

/** The body of a failure in the dialect's shape. */
export function errorBody(dialect: Dialect, failure: Failure) {
  if (dialect === 'infobip') return envelope(failure.code, failure.text, failure.validationErrors);
  const code = failure.reason !== undefined ? TWILIO_CODE_BY_REASON[failure.reason] : TWILIO_CODE_BY_CODE[failure.code];
  return twilioError(STATUS_BY_CODE[failure.code], code, twilioMessage(failure));
}

export function sendFailure(reply: FastifyReply, failure: Failure) {
  if (failure.retryAfterMs !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(failure.retryAfterMs / 1000))));
  return reply.code(STATUS_BY_CODE[failure.code]).send(errorBody(dialectOf(reply.request), failure));
}

/** Answers a service result: the mapped value on success, the envelope on failure. */
export function respond<T, R>(reply: FastifyReply, result: Result<T>, present: (value: T) => R): R | FastifyReply {
  if (!result.ok) return sendFailure(reply, result.failure);
  return present(result.value);
}

/** Response schemas of the error statuses a route can answer, for serialisation and OpenAPI. */
export function errorResponses(...statuses: number[]) {
  const responses: Record<number, typeof ErrorEnvelopeSchema> = {};
  for (const status of [...statuses, 500]) responses[status] = ErrorEnvelopeSchema;
  return responses;
}

/** The same for a route of the Twilio dialect. */
export function twilioErrorResponses(...statuses: number[]) {
  const responses: Record<number, typeof TwilioErrorSchema> = {};
  for (const status of [...statuses, 500]) responses[status] = TwilioErrorSchema;
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

const FRAMEWORK_ERRORS: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'Request body is too large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type: send application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['BAD_REQUEST', 'Request body does not match its Content-Length'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['BAD_REQUEST', 'Request body is empty'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['BAD_REQUEST', 'Request body is not valid JSON'],
};

/** Client-error statuses thrown by hooks (idempotency keys, Fastify itself), as catalogue codes. */
const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = { 404: 'NOT_FOUND', 409: 'CONFLICT', 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE', 422: 'UNPROCESSABLE_ENTITY' };

export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.validation) {
    const validationErrors: ValidationErrors = {};
    for (const e of error.validation) {
      const field = fieldOf(e as never, error.validationContext);
      (validationErrors[field] ??= []).push(describeValidation(e as never));
    }
    const text = Object.entries(validationErrors).map(([f, m]) => `[${f} : ${m.join(', ')}]`).join(' ');
    return sendFailure(reply, { code: 'BAD_REQUEST', text, validationErrors });
  }
  const known = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
  if (known) return sendFailure(reply, { code: known[0], text: known[1] });
  if (error instanceof SyntaxError || (error.statusCode === 400 && !error.code)) {
    return sendFailure(reply, { code: 'BAD_REQUEST', text: 'Request body is not valid JSON' });
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    const code = CODE_BY_STATUS[error.statusCode] ?? 'BAD_REQUEST';
    return sendFailure(reply, { code, text: error.message || 'Bad request' });
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendFailure(reply, { code: 'GENERAL_ERROR', text: 'Something went wrong. Please contact support.' });
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0] ?? request.url;
  return sendFailure(reply, { code: 'NOT_FOUND', text: dialectOf(request) === 'twilio' ? `The requested resource ${path} was not found` : `Requested URL not found: ${request.method} ${path}` });
}
