// The OpenAPI 3.1 document is generated from the route schemas (never hand-written) and served at
// /openapi.json, with interactive docs at /docs.
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { dialectOfPath, ErrorEnvelopeSchema, PreludeErrorSchema, TwilioErrorSchema, VONAGE_PROBLEM_TYPE, VonageProblemSchema } from './error-envelope.js';
import { IDEMPOTENCY_KEY_PATTERN } from './plugins/idempotency.js';
import type { App } from './route-types.js';

/** What each error status means, for responses whose schema does not say it itself. */
const ERROR_DESCRIPTIONS: Record<string, string> = {
  400: 'The request is malformed (not JSON, a wrong or missing field or parameter) or refused by a rule; `validationErrors` names the fields.',
  401: 'No API key, or an unknown or revoked one.',
  403: 'The API key lacks the scope this operation needs.',
  404: 'No such resource in the API key\'s account (another account\'s resource answers the same).',
  409: 'The resource is still in use, or a request with the same Idempotency-Key is still being processed.',
  422: 'The Idempotency-Key was already used with another request (method, path or body).',
  413: 'The request body is larger than the configured limit (TWOFA_BODY_LIMIT).',
  415: 'The request body\'s content type is not one the operation accepts (`application/json`).',
  429: 'A rate limit was reached; `Retry-After` gives the seconds to wait.',
  500: 'Unexpected failure; the body never carries details. Also a write whose commit answer was lost with the database: it may have been done.',
  503: 'The database is unreachable or did not answer in time, and nothing was written: retry after `Retry-After` seconds.',
};

const NEXT_RESEND = {
  'X-Next-Resend-At': { type: 'string', description: 'When sendPinPerPhoneNumberLimit lets the next resend to this destination through (ISO 8601; now: at once), for a countdown.' },
};

const RETRY_AFTER = { 'Retry-After': { type: 'integer', minimum: 1, description: 'Seconds to wait before retrying.' } };

/** Response declarations as the document shows them: every one described. */
function documentedResponses(response: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!response) return response;
  const out: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(response)) {
    const declared = schema as Record<string, unknown>;
    const description = declared['description'] ?? ERROR_DESCRIPTIONS[status];
    out[status] = {
      ...declared,
      ...(description !== undefined ? { description } : {}),
      ...((status === '429' || status === '503') && declared['headers'] === undefined ? { headers: RETRY_AFTER } : {}),
    };
  }
  return out;
}

interface DocumentedOperation {
  operationId?: string;
  security?: unknown[];
  parameters?: Record<string, unknown>[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: { required?: string[] } }> };
  responses?: Record<string, unknown>;
}
type DocumentedPaths = Record<string, Record<string, DocumentedOperation>>;

// The body parsers are the app's, not a route's: every operation of a method Fastify parses a body
// for can answer 413 and 415 before its own code runs, whether or not it declares a body.
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

function declareBodyParserAnswers(paths: DocumentedPaths) {
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!BODY_METHODS.has(method)) continue;
      operation.responses ??= {};
      for (const status of ['413', '415']) {
        operation.responses[status] ??= { description: ERROR_DESCRIPTIONS[status], content: errorContentOf(path) };
      }
    }
  }
}

/** The error body of a path's dialect (error-envelope.ts): Prelude's under /v2/verification, Vonage's under /v2/verify, Twilio's elsewhere under /v2. */
const ERROR_SCHEMAS = { infobip: ErrorEnvelopeSchema, twilio: TwilioErrorSchema, prelude: PreludeErrorSchema, vonage: VonageProblemSchema };
const errorSchemaOf = (path: string) => ERROR_SCHEMAS[dialectOfPath(path)];
/** The error answer of a path's dialect under its media type (Vonage's RFC 7807 problems, JSON for the others). */
const errorContentOf = (path: string) => ({ [dialectOfPath(path) === 'vonage' ? VONAGE_PROBLEM_TYPE : 'application/json']: { schema: JSON.parse(JSON.stringify(errorSchemaOf(path))) as unknown } });
/** The credentials each dialect takes: Twilio's HTTP Basic, Prelude's Bearer token, Vonage's JWT or Basic, else both key headers. */
const SECURITY = { infobip: [{ APIKeyHeader: [] }, { BearerKey: [] }], twilio: [{ TwilioBasic: [] }], prelude: [{ BearerKey: [] }], vonage: [{ VonageJwt: [] }, { VonageBasic: [] }] };

/** A response declared `type: 'null'` has no body (Vonage's next_workflow answers 200 and nothing): no content. */
function dropNullBodies(paths: DocumentedPaths) {
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      for (const response of Object.values(operation.responses ?? {}) as Array<{ content?: Record<string, { schema?: { type?: unknown } }> }>) {
        if (response.content && Object.values(response.content).every((media) => media.schema?.type === 'null')) delete response.content;
      }
    }
  }
}

// Every authenticated operation (one that can answer 401) can also answer 429 before its key is looked
// up, once a client has failed authentication too often (TWOFA_AUTH_FAILURE_LIMIT, http/plugins/auth.ts).
function declareAuthThrottleAnswers(paths: DocumentedPaths) {
  for (const [path, item] of Object.entries(paths)) {
    for (const operation of Object.values(item)) {
      if (operation.responses?.['401'] === undefined) continue;
      operation.responses['429'] ??= {
        description: 'Too many failed authentications from this address (TWOFA_AUTH_FAILURE_LIMIT), or a rate limit was reached; `Retry-After` gives the seconds to wait.',
        headers: { 'Retry-After': { description: RETRY_AFTER['Retry-After'].description, schema: { type: 'integer', minimum: 1 } } },
        content: errorContentOf(path),
      };
    }
  }
}

/**
 * Every authenticated POST takes an Idempotency-Key (http/plugins/idempotency.ts, a hook on all routes,
 * so declared here for all of them): the header, and the 409 and 422 it may answer, in the shape of the
 * operation's own 400.
 */
function declareIdempotencyKeys(paths: DocumentedPaths) {
  for (const item of Object.values(paths)) {
    const operation = item['post'];
    if (operation?.security === undefined) continue;
    (operation.parameters ??= []).push({
      in: 'header', name: 'Idempotency-Key', required: false,
      description: 'Makes the request safe to repeat: a repeat with the same key and body within TWOFA_IDEMPOTENCY_WINDOW (24 h) gets the first answer again, '
        + 'marked `Idempotent-Replayed: true`, without running again. Keys are per account.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN },
    });
    operation.responses ??= {};
    const errorBody = (operation.responses['400'] as { content?: unknown } | undefined)?.content
      ?? { 'application/json': { schema: JSON.parse(JSON.stringify(ErrorEnvelopeSchema)) as unknown } };
    operation.responses['409'] ??= { description: ERROR_DESCRIPTIONS['409'], content: errorBody };
    operation.responses['422'] ??= { description: ERROR_DESCRIPTIONS['422'], content: errorBody };
  }
}

/** A route with several methods gives each of its operations the same id: tell them apart by method. */
function uniqueOperationIds(paths: DocumentedPaths) {
  for (const item of Object.values(paths)) {
    const operations = Object.entries(item);
    const shared = operations.filter(([, op]) => op.operationId !== undefined && operations.filter(([, other]) => other.operationId === op.operationId).length > 1);
    for (const [method, operation] of shared) operation.operationId = `${operation.operationId}-${method}`;
  }
}

/**
 * A missing POST/PUT body is validated as `{}` (app.ts), so a body is required exactly when its schema
 * requires a member: the resend and partial-update bodies may be left out. (@fastify/swagger marks
 * every declared body required.)
 */
function markOptionalBodies(paths: DocumentedPaths) {
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const body = operation.requestBody;
      if (!body) continue;
      const schema = Object.values(body.content ?? {})[0]?.schema;
      body.required = (schema?.required ?? []).length > 0;
    }
  }
}

/** Registers the generator; routes registered after it (in a later plugin) are captured. */
export function registerOpenApi(app: App, version: string): void {
  app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'twofa',
        version,
        description: 'Self-hosted two-factor one-time-PIN service. `/2fa/2` is wire-compatible with Infobip\'s 2FA API v2, `/v2` with Twilio Verify v2, `/v2/verification` with Prelude Verify v2, `/v2/verify` with Vonage Verify v2; `/api/v1` is the service\'s own API.',
      },
      components: {
        securitySchemes: {
          APIKeyHeader: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Infobip style: `App <key>`.' },
          BearerKey: { type: 'http', scheme: 'bearer', description: 'The same key as `Bearer <key>`.' },
          VonageJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Vonage Verify (/v2/verify): a JWT signed RS256 by a Vonage application\'s private key (claim application_id: a twofa application whose public key is registered with PUT /api/v1/vonage/applications/{applicationId}).' },
          VonageBasic: { type: 'http', scheme: 'basic', description: 'Vonage Verify (/v2/verify): a twofa application id as api_key (user name), an API key of its account as api_secret (password).' },
          TwilioBasic: { type: 'http', scheme: 'basic', description: 'Twilio Verify (/v2): the account SID (`GET /api/v1/me`) as user name, its Auth Token (`GET /api/v1/twilio/auth-token`) or an API key as password.' },
        },
      },
      tags: [
        { name: '2FA applications' }, { name: '2FA message templates' }, { name: '2FA PINs' },
        { name: 'PINs' }, { name: 'Email templates' }, { name: 'Webhooks' }, { name: 'Inbox' }, { name: 'Operations' },
        { name: 'Security' }, { name: 'Audit' }, { name: 'Statistics' }, { name: 'API keys' }, { name: 'Test numbers' },
        { name: 'Routes', description: 'The operator\'s routes table (named transports, rules by country and prefix, senders, regulatory fields) and the applications\' own senders per country: docs/routing.md.' },
        { name: 'Factors', description: 'A user\'s own authenticators (TOTP) and their challenges, by the application and your id of the user (docs/factors.md).' },
        { name: 'twofa extensions', description: 'Operations beside Infobip\'s under /2fa/2 (WhatsApp and Telegram sends and resends), in the shape of its SMS operations.' },
        { name: 'Twilio Verify', description: 'Twilio Verify v2, wire-compatible: form-encoded PascalCase parameters, snake_case JSON, Twilio\'s errors.' },
        { name: 'Vonage Verify', description: 'Vonage Verify v2 under /v2/verify, wire-compatible: JSON, a Vonage application\'s JWT or Basic api_key:api_secret, RFC 7807 problems; and the Vonage applications\' public keys.' },
        { name: 'Prelude Verify', description: 'Prelude Verify v2 under /v2/verification, wire-compatible: JSON, a twofa API key as Bearer token, Prelude\'s errors; and the account\'s Prelude settings.' },
      ],
    },
    transformObject: (documentObject) => {
      const document = 'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject;
      const paths = ((document as { paths?: DocumentedPaths }).paths ?? {});
      // The operations of a route with several methods are one object: give each method its own.
      for (const item of Object.values(paths)) for (const method of Object.keys(item)) item[method] = structuredClone(item[method]!);
      markOptionalBodies(paths);
      dropNullBodies(paths);
      declareBodyParserAnswers(paths);
      declareAuthThrottleAnswers(paths);
      declareIdempotencyKeys(paths);
      uniqueOperationIds(paths);
      return document;
    },
    // Routes that need a key say so in the document; public ones (health, docs) do not.
    transform: ({ schema, url, route }) => {
      const needsKey = route.config?.scope !== undefined;
      const transformed = { ...(schema as Record<string, unknown>) };
      if (needsKey) transformed['security'] = SECURITY[route.config?.dialect ?? 'infobip'];
      transformed['response'] = documentedResponses(transformed['response'] as Record<string, unknown> | undefined);
      const answered = (transformed['response'] as Record<string, Record<string, unknown>> | undefined)?.['200'];
      if (route.config?.nextResendAt === true && answered) answered['headers'] = NEXT_RESEND;
      if (!schema || (schema as { hide?: boolean }).hide) transformed['hide'] = true;
      return { schema: transformed as never, url };
    },
  });
  registerDocs(app);
  app.register(async (scoped) => {
    scoped.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  });
}

/** The message of a Fastify error answer (`{"statusCode":403,"message":"Forbidden",...}`), or none. */
function errorMessage(body: string): string {
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message;
    return typeof message === 'string' ? message : '';
  } catch {
    return '';
  }
}

/** Headers of the docs instance's answers that belong to its connection, not to the answer. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

/**
 * Swagger UI at /docs, loaded at the first visit: most nodes never show it, and @fastify/swagger-ui
 * with @fastify/static, its file server, is not loaded until then. It runs in a Fastify instance of
 * its own, made at that visit from this app's finished document; every request under /docs is
 * handed to it, and what it does not know is this app's 404.
 */
function registerDocs(app: App): void {
  let docs: Promise<FastifyInstance> | undefined;
  const createDocs = async () => {
    const { default: swaggerUi } = await import('@fastify/swagger-ui');
    const instance = Fastify({ routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true } });
    // (The plugin's types know OpenAPI 2 and 3.0 documents; this one is 3.1.)
    await instance.register(swagger, { mode: 'static', specification: { document: app.swagger() as never } });
    await instance.register(swaggerUi, { routePrefix: '/docs' });
    await instance.ready();
    return instance;
  };
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    // A failed start is tried again at the next visit.
    docs ??= createDocs().catch((err: unknown) => {
      docs = undefined;
      throw err;
    });
    // GET also for HEAD: Fastify leaves the body out of this app's HEAD answer itself.
    const answer = await (await docs).inject({ method: 'GET', url: request.url, headers: request.headers });
    if (answer.statusCode === 404) return reply.callNotFound();
    // Its other refusals and failures are answered like every error of this app (error-envelope.ts).
    if (answer.statusCode >= 400) throw Object.assign(new Error(errorMessage(answer.body)), { statusCode: answer.statusCode });
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !CONNECTION_HEADERS.has(name)) void reply.header(name, value);
    }
    return answer.rawPayload.length > 0 ? reply.code(answer.statusCode).send(answer.rawPayload) : reply.code(answer.statusCode).send();
  };
  app.get('/docs', { schema: { hide: true } }, forward);
  app.get('/docs/*', { schema: { hide: true } }, forward);
}
