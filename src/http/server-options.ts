// The Fastify server options of every twofa node: logger, body limit, trusted proxies, timeouts,
// request ids, the router's tolerance of trailing and duplicate slashes (real clients send them), and
// Ajv without coercion. Options rather than hooks: Fastify takes them when the instance is made, so
// they live apart from the plugins that app.ts registers on it.
import { LogController, type FastifyHttpOptions, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { sendFailure } from './error-envelope.js';

export interface ServerOptions {
  logger: Logger;
  bodyLimitBytes: number;
  /** Proxies whose X-Forwarded-For is believed (TWOFA_TRUSTED_PROXIES); none when absent or empty. */
  trustedProxies?: string[];
  /** Longest time for a whole request (TWOFA_REQUEST_TIMEOUT); absent: DEFAULT_REQUEST_TIMEOUT_MS. */
  requestTimeoutMs?: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

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
export function fastifyServerOptions(options: ServerOptions): FastifyHttpOptions<Server> {
  return {
    loggerInstance: options.logger,
    logController: new OneLineRequestLog(),
    bodyLimit: options.bodyLimitBytes,
    // request.ip is the socket's peer unless that peer is a configured proxy: a spoofed
    // X-Forwarded-For from anyone else changes nothing (per-IP limits, audit log).
    trustProxy: options.trustedProxies !== undefined && options.trustedProxies.length > 0 ? options.trustedProxies : false,
    // A client that trickles its request (slowloris) is cut off; Node checks the deadline every
    // connectionsCheckingInterval, so that is kept well below the timeout.
    requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    // A URL that is not valid percent-encoding (a lone surrogate, %ED%A0%80) is refused by the router
    // before any route: in the error envelope like every other failure, not Fastify's own shape.
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      void sendFailure(reply, { name: 'MALFORMED_REQUEST', text: error.code === 'FST_ERR_BAD_URL' ? 'The URL is not valid (bad percent-encoding)' : 'Bad request' });
    },
    http: { connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor((options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) / 4))) },
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
