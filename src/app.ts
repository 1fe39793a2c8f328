// buildApp: the HTTP composition root. It makes the Fastify instance and registers, in order, the
// plugins every request goes through (src/http/plugins/, each file says why it exists), the error
// envelope, the OpenAPI document and the routes; it never listens. How a request gets here:
// package.json `bin` -> cli/twofa.ts -> cli/serve-command.ts -> main.ts (createNode wires the store,
// keyring, workers and calls buildApp; startServer listens) -> this file. Tests call buildApp or
// createNode and use inject(). docs/architecture.md (*Entry*) says the same.
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RateLimit } from './domain/durations.js';
import { handleError, handleNotFound } from './http/error-envelope.js';
import { registerOpenApi } from './http/openapi.js';
import { registerAuth } from './http/plugins/auth.js';
import { registerBodyDeadline } from './http/plugins/body-deadline.js';
import { DEFAULT_IDEMPOTENCY_MAX_KEYS, DEFAULT_IDEMPOTENCY_WINDOW_MS, registerIdempotency } from './http/plugins/idempotency.js';
import { registerJsonBody } from './http/plugins/json-body.js';
import { registerLingeringClose } from './http/plugins/lingering-close.js';
import { registerRequestMetrics } from './http/plugins/request-metrics.js';
import { registerResponseHeaders } from './http/plugins/response-headers.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, fastifyServerOptions, type ServerOptions } from './http/server-options.js';
import { ALL_ROUTES } from './http/routes/index.js';
import { packageVersion } from './version.js';
import type { App, RouteDeps } from './http/route-types.js';

export interface BuildAppOptions extends RouteDeps, ServerOptions {
  /** Failed authentications per client address and per key prefix before 429 (TWOFA_AUTH_FAILURE_LIMIT); absent: 20/1m. */
  authFailureLimit?: RateLimit;
  /** How long an Idempotency-Key and its answer are kept (TWOFA_IDEMPOTENCY_WINDOW); absent: 24 h. */
  idempotencyWindowMs?: number;
  /** Idempotency-Keys one account may hold within the window (TWOFA_IDEMPOTENCY_MAX_KEYS); absent: 10,000. */
  idempotencyMaxKeys?: number;
}

export function buildApp(options: BuildAppOptions): App {
  const app = Fastify(fastifyServerOptions(options)).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;

  // Hooks of one kind run in the order they are added: the body deadline is armed before
  // authentication awaits anything, and an idempotent answer is stored (its query waits for
  // durability itself) in onSend before the answer leaves.
  registerJsonBody(app);
  registerBodyDeadline(app, { timeoutMs: requestTimeoutMs });
  registerLingeringClose(app);
  registerAuth(app, { ctx: options.ctx, failureLimit: options.authFailureLimit });
  // A request outliving its lease may be run again by a repeat: the lease is well beyond the request timeout.
  registerIdempotency(app, { ctx: options.ctx, windowMs: options.idempotencyWindowMs ?? DEFAULT_IDEMPOTENCY_WINDOW_MS, maxKeys: options.idempotencyMaxKeys ?? DEFAULT_IDEMPOTENCY_MAX_KEYS, leaseMs: Math.max(60_000, 2 * requestTimeoutMs) });
  registerResponseHeaders(app, { isReady: options.isReady });
  registerRequestMetrics(app, options.metrics);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);

  registerOpenApi(app, packageVersion());
  // Routes go in a plugin registered after the OpenAPI generator, so that it sees every one of them.
  app.register(async (scoped) => {
    for (const register of ALL_ROUTES) register(scoped as App, options);
  });
  return app;
}
