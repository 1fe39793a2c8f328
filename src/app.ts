// buildApp builds the Fastify instance and never listens: main.ts listens, tests use inject().
import Fastify, { LogController, type FastifyHttpOptions, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { RateLimit } from './domain/durations.js';
import { authHook } from './http/auth.js';
import { AuthFailureThrottle } from './http/auth-throttle.js';
import { handleError, handleNotFound, sendFailure } from './http/error-envelope.js';
import { registerOpenApi } from './http/openapi.js';
import { DEFAULT_IDEMPOTENCY_WINDOW_MS, registerIdempotency } from './http/plugins/idempotency.js';
import { ALL_ROUTES } from './http/routes/index.js';
import { packageVersion } from './version.js';
import type { App, RouteDeps } from './http/route-types.js';

export interface BuildAppOptions extends RouteDeps {
  logger: Logger;
  bodyLimitBytes: number;
  /** Proxies whose X-Forwarded-For is believed (TWOFA_TRUSTED_PROXIES); none when absent or empty. */
  trustedProxies?: string[];
  /** Longest time for a whole request (TWOFA_REQUEST_TIMEOUT); absent: 30 s. */
  requestTimeoutMs?: number;
  /** Failed authentications per client address and per key prefix before 429 (TWOFA_AUTH_FAILURE_LIMIT); absent: 20/1m. */
  authFailureLimit?: RateLimit;
  /** How long an Idempotency-Key and its answer are kept (TWOFA_IDEMPOTENCY_WINDOW); absent: 24 h. */
  idempotencyWindowMs?: number;
}

export const DEFAULT_AUTH_FAILURE_LIMIT: RateLimit = { count: 20, windowMs: 60_000 };

/** Drops `null` members of JSON bodies: Infobip's Java stack reads null as absent, and clients rely on it. */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = dropNulls(v);
    return out;
  }
  return value;
}

/**
 * One log line per request, once it is answered (method, path without its query string, status, ms),
 * instead of Fastify's two ("incoming request", then "request completed"): half the logging cost on
 * the hot path, and every line still says which request it was.
 */
class OneLineRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/**
 * The Fastify server options of every twofa node (logger, limits, timeouts, request ids, Ajv). Also
 * used by bench/ceiling-server.ts, so that the benchmark's empty-route ceiling runs the same stack.
 */
export function fastifyServerOptions(options: Pick<BuildAppOptions, 'logger' | 'bodyLimitBytes' | 'trustedProxies' | 'requestTimeoutMs'>): FastifyHttpOptions<Server> {
  return {
    loggerInstance: options.logger,
    logController: new OneLineRequestLog(),
    bodyLimit: options.bodyLimitBytes,
    // request.ip is the socket's peer unless that peer is a configured proxy: a spoofed
    // X-Forwarded-For from anyone else changes nothing (per-IP limits, audit log).
    trustProxy: options.trustedProxies !== undefined && options.trustedProxies.length > 0 ? options.trustedProxies : false,
    // A client that trickles its request (slowloris) is cut off; Node checks the deadline every
    // connectionsCheckingInterval, so that is kept well below the timeout.
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    // A URL that is not valid percent-encoding (a lone surrogate, %ED%A0%80) is refused by the router
    // before any route: in the error envelope like every other failure, not Fastify's own shape.
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      void sendFailure(reply, { name: 'MALFORMED_REQUEST', text: error.code === 'FST_ERR_BAD_URL' ? 'The URL is not valid (bad percent-encoding)' : 'Bad request' });
    },
    http: { connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor((options.requestTimeoutMs ?? 30_000) / 4))) },
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID();
    },
    ajv: {
      // No coercion: a `pin` sent as a number is a 400, as are "5" for an integer and "true" for a boolean.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false },
    },
  };
}

export function buildApp(options: BuildAppOptions): App {
  const app = Fastify(fastifyServerOptions(options)).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  // An empty body with a JSON content type is an empty object, not a parse error.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // JSON only: a text/plain body is a 415, not a string that fails validation.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, {});
    parseJson(request, body as string, (err, parsed) => (err ? done(err, undefined) : done(null, dropNulls(parsed))));
  });

  app.decorateRequest('principal', null as never);
  // Resend bodies are optional (clients send none, `{}` or only `trackDelivery`); a missing body is validated as `{}`.
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && (request.method === 'POST' || request.method === 'PUT')) request.body = {};
  });
  // Node's requestTimeout stops watching a request once its headers are in, so a body trickled a
  // byte at a time (slowloris) would hold its connection for ever: the whole body must arrive within
  // the timeout too, or the connection is closed with a 408.
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.complete) return done();
    const timer = setTimeout(() => {
      // inject() requests have no real socket: only a network client can be slow.
      if (raw.complete || typeof raw.socket?.end !== 'function' || raw.socket.destroyed) return;
      request.log.warn({ timeoutMs: requestTimeoutMs }, 'request body not received in time; connection closed');
      raw.socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      setTimeout(() => raw.socket.destroy(), 1000).unref();
    }, requestTimeoutMs);
    timer.unref();
    raw.once('close', () => clearTimeout(timer));
    raw.once('end', () => clearTimeout(timer));
    reply.raw.once('finish', () => clearTimeout(timer));
    done();
  });
  // A refused body (413, a parse error) is answered while the client may still be sending it, and
  // Fastify closes such a connection. Closed with the client's data unread, the socket would send a
  // TCP reset, on which the client's system may drop the answer before the client reads it: linger
  // instead, discarding what still arrives, until the client hangs up or LINGER_MS pass (nginx's
  // lingering_close).
  app.addHook('onResponse', (request, _reply, done) => {
    const socket = request.raw.socket as Socket | undefined;
    if (!request.raw.complete && socket && typeof socket.destroy === 'function' && !socket.destroyed) lingerBeforeClosing(socket);
    done();
  });
  app.addHook('onRequest', authHook(options.ctx, new AuthFailureThrottle(options.authFailureLimit ?? DEFAULT_AUTH_FAILURE_LIMIT)));
  // Its onSend stores the answer with a query that waits for durability itself, before the answer leaves.
  // A request outliving its lease may be run again by a repeat: the lease is well beyond the request timeout.
  registerIdempotency(app, { ctx: options.ctx, windowMs: options.idempotencyWindowMs ?? DEFAULT_IDEMPOTENCY_WINDOW_MS, leaseMs: Math.max(60_000, 2 * requestTimeoutMs) });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // A request still in flight when the node starts shutting down gets its answer and then the
    // connection closes: a keep-alive connection busy when the server closed would otherwise stay
    // open, and the shutdown wait, until the client hung up or the keep-alive timeout.
    if (!options.isReady()) reply.header('connection', 'close');
  });
  // Request latency by route pattern (never the raw URL: it may carry a destination).
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    options.metrics.httpSeconds.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);

  registerOpenApi(app, packageVersion());
  // Routes go in a plugin registered after the OpenAPI generator, so that it sees every one of them.
  app.register(async (scoped) => {
    for (const register of ALL_ROUTES) register(scoped as App, options);
  });
  return app;
}

const LINGER_MS = 2000;

/** Delays the close Node scheduled after the answer until the client stops sending (see the onResponse hook). */
function lingerBeforeClosing(socket: Socket): void {
  // Node's server ends the socket and destroys it once the answer is flushed ('finish').
  if (!socket.listeners('finish').includes(socket.destroy)) return;
  socket.removeListener('finish', socket.destroy);
  const close = () => socket.destroy();
  socket.once('end', close);
  setTimeout(close, LINGER_MS).unref();
  socket.resume();
}
