// Every failure leaves the service in Infobip's envelope:
// {"requestError":{"serviceException":{"messageId":"BAD_REQUEST","text":"...","validationErrors":{...}}}}
// The catalogue's codes map to HTTP statuses here and nowhere else.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ErrorCode, Failure, Result, ValidationErrors } from '../domain/errors.js';

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

export function sendFailure(reply: FastifyReply, failure: Failure) {
  if (failure.retryAfterMs !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(failure.retryAfterMs / 1000))));
  return reply.code(STATUS_BY_CODE[failure.code]).send(envelope(failure.code, failure.text, failure.validationErrors));
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
    return reply.code(400).send(envelope('BAD_REQUEST', text, validationErrors));
  }
  const known = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
  if (known) return reply.code(STATUS_BY_CODE[known[0]]).send(envelope(known[0], known[1]));
  if (error instanceof SyntaxError || (error.statusCode === 400 && !error.code)) {
    return reply.code(400).send(envelope('BAD_REQUEST', 'Request body is not valid JSON'));
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    const code = CODE_BY_STATUS[error.statusCode] ?? 'BAD_REQUEST';
    return reply.code(STATUS_BY_CODE[code]).send(envelope(code, error.message || 'Bad request'));
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send(envelope('GENERAL_ERROR', 'Something went wrong. Please contact support.'));
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0] ?? request.url;
  return reply.code(404).send(envelope('NOT_FOUND', `Requested URL not found: ${request.method} ${path}`));
}
