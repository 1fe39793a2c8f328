// Vonage's RFC 7807 problems (application/problem+json: type, title, detail, instance) for the
// failures of the catalogue (domain/errors.ts). Vonage's statuses differ from the catalogue's where its
// API says so: an invalid parameter is a 422, a wrong code a 400, too many wrong codes a 410, a
// verification already in flight to the number a 409 (with its request_id). The Vonage service
// (service/vonage-verifications.ts) names those outcomes by Vonage's own codes (Failure.dialectCode).
import type { Failure, FailureName } from '../../../domain/errors.js';
import { statusOf } from '../../failure-statuses.js';

const ERRORS = 'https://developer.vonage.com/en/api-errors';
const VERIFY_ERRORS = `${ERRORS}/verify-v2`;

interface Problem {
  status: number;
  title: string;
  type: string;
}

/** Vonage's codes (its OpenAPI document's x-errors) that twofa answers, with their status, title and type. */
const PROBLEM_BY_CODE: Record<string, Problem> = {
  'invalid-code': { status: 400, title: 'Invalid Code', type: `${VERIFY_ERRORS}#invalid-code` },
  expired: { status: 410, title: 'Invalid Code', type: `${VERIFY_ERRORS}#expired` },
  'request-not-found': { status: 404, title: 'Not Found', type: `${VERIFY_ERRORS}#request-not-found` },
  concurrent: { status: 409, title: 'Conflict', type: `${VERIFY_ERRORS}#concurrent` },
  conflict: { status: 409, title: 'Conflict', type: `${VERIFY_ERRORS}#conflict` },
  'template-not-found': { status: 404, title: 'Not Found', type: `${VERIFY_ERRORS}#template-not-found` },
  'template-fragment-not-found': { status: 404, title: 'Not Found', type: `${VERIFY_ERRORS}#template-fragment-not-found` },
  'template-exists': { status: 409, title: 'Conflict', type: `${VERIFY_ERRORS}#template-exists` },
  'fragment-exists': { status: 409, title: 'Conflict', type: `${VERIFY_ERRORS}#fragment-exists` },
  'not-empty-template': { status: 409, title: 'Conflict', type: `${VERIFY_ERRORS}#not-empty-template` },
  'max-templates': { status: 409, title: 'Conflict', type: `${VERIFY_ERRORS}#max-templates` },
};

/** Failures of the templates' use cases (service/vonage-templates.ts), by Vonage's code. */
const CODE_BY_FAILURE: Partial<Record<FailureName, string>> = {
  MESSAGE_NOT_FOUND: 'template-not-found',
  TEMPLATE_TEXT_NOT_FOUND: 'template-fragment-not-found',
  TEMPLATE_NAME_EXISTS: 'template-exists',
  TEMPLATE_TEXT_EXISTS: 'fragment-exists',
  TEMPLATE_NOT_EMPTY: 'not-empty-template',
  TEMPLATE_LIMIT_REACHED: 'max-templates',
};

/** The problem of each status, for failures without a Vonage code of their own. */
const PROBLEM_BY_STATUS: Record<number, Omit<Problem, 'status'>> = {
  400: { title: 'Bad Request', type: `${ERRORS}#bad-request` },
  401: { title: 'Unauthorized', type: `${ERRORS}#unauthorized` },
  403: { title: 'Forbidden', type: `${ERRORS}#forbidden` },
  404: { title: 'Not Found', type: `${ERRORS}#not-found` },
  409: { title: 'Conflict', type: `${VERIFY_ERRORS}#concurrent` },
  413: { title: 'Payload Too Large', type: `${ERRORS}#invalid-params` },
  415: { title: 'Unsupported Media Type', type: `${ERRORS}#invalid-params` },
  422: { title: 'Invalid params', type: `${ERRORS}#invalid-params` },
  429: { title: 'Rate Limit Hit', type: `${ERRORS}#throttled` },
  500: { title: 'Internal error', type: `${ERRORS}#internal-error` },
  503: { title: 'Service Unavailable', type: `${ERRORS}#internal-error` },
};

/** Catalogue failures whose Vonage status is not the catalogue's. */
const STATUS_BY_FAILURE: Partial<Record<FailureName, number>> = {
  // Vonage answers every parameter it refuses with 422 Invalid params (a body that is not JSON stays a 400).
  INVALID_REQUEST: 422,
  // A start while another to the same number is being made is Vonage's concurrent verification.
  CONCURRENT_START: 409,
  PIN_ENDED: 410,
};

function problemOf(failure: Failure): Problem {
  const code = failure.dialectCode ?? CODE_BY_FAILURE[failure.name];
  const coded = code === undefined ? undefined : PROBLEM_BY_CODE[code];
  if (coded) return coded;
  const status = STATUS_BY_FAILURE[failure.name] ?? statusOf(failure.name);
  return { status, ...(PROBLEM_BY_STATUS[status] ?? PROBLEM_BY_STATUS[500]!) };
}

export function vonageStatusOf(failure: Failure): number {
  return problemOf(failure).status;
}

/** The problem body: `instance` is the request's id (Vonage's trace id); `invalid_parameters` on a 422. */
export function vonageProblem(failure: Failure, instance: string) {
  const { status, title, type } = problemOf(failure);
  const invalid = status === 422 && failure.validationErrors
    ? Object.entries(failure.validationErrors).map(([name, reasons]) => ({ name, reason: reasons.join('; ') }))
    : undefined;
  return { type, title, detail: failure.text, instance, ...(invalid !== undefined ? { invalid_parameters: invalid } : {}), ...failure.dialectFields };
}
