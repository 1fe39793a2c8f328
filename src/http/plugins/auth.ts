// Authentication comes first, in onRequest, before the body is even parsed: an unauthenticated
// request is a 401 whatever else is wrong with it. Routes name the scope they need in their config
// (no scope: public, such as health and the docs); the Twilio dialect's routes say `dialect: 'twilio'`
// and authenticate with HTTP Basic, the Vonage dialect's with a JWT or Basic (service/vonage-credentials.ts). Repeated failures from one address or on one key prefix are
// throttled (TWOFA_AUTH_FAILURE_LIMIT) before any key is looked up, so guessing costs no queries.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimit } from '../../domain/durations.js';
import { ipRateKey } from '../../domain/client-ip.js';
import { API_KEY_MARKER, authenticate, hasScope, presentedApiKey } from '../../service/api-keys.js';
import { appendAudit } from '../../service/audit-log.js';
import type { Principal, ServiceContext } from '../../service/context.js';
import { authenticateBasic, basicCredentials } from '../../service/twilio-credentials.js';
import { authenticateVonage } from '../../service/vonage-credentials.js';
import { AuthFailureThrottle, type Throttled } from '../auth-throttle.js';
import { sendFailure } from '../error-envelope.js';
import type { App } from '../route-types.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Scope the caller's key must hold; routes without one are public (health, docs). */
    scope?: string;
  }
  interface FastifyRequest {
    principal: Principal;
    /** On a Vonage Verify route: the application its credentials bind the call to. */
    vonageApplicationId: string;
  }
}

/**
 * What failures are counted under per key: the marker and 4 characters. Someone guessing at a key
 * keeps its listed prefix (4 to 8 characters after the marker) and varies the rest, whatever length
 * they make their guesses; random guesses rarely share 4 characters (64^4).
 */
function guessedPrefix(key: string): string {
  return key.slice(0, (key.startsWith(API_KEY_MARKER) ? API_KEY_MARKER.length : 0) + 4);
}

/**
 * Reports an address or key prefix going past TWOFA_AUTH_FAILURE_LIMIT, once per throttled period:
 * a log line, `twofa_rate_limit_refusals_total{limit="auth_failures_ip"|"auth_failures_prefix"}`, and
 * an `auth.throttled` audit entry in the account of every active key with the presented prefix (a
 * throttled request has no account of its own; the owner of the key being guessed at is the one who
 * needs to know). Only this rare path reads the key list.
 */
async function reportThrottled(ctx: ServiceContext, request: FastifyRequest, throttled: Throttled, presented: string | undefined): Promise<void> {
  const limit = throttled.by === 'ip' ? 'auth_failures_ip' : 'auth_failures_prefix';
  ctx.metrics.rateLimited(limit);
  const guessed = presented === undefined ? undefined : guessedPrefix(presented);
  request.log.warn({ throttledBy: throttled.by, clientIp: request.ip, keyPrefix: guessed, retryAfterMs: throttled.retryAfterMs }, 'authentication throttled after repeated failures (TWOFA_AUTH_FAILURE_LIMIT)');
  if (presented === undefined) return;
  // The keys this one imitates: those whose listed prefix it starts with.
  const owners = new Map((await ctx.store.listApiKeys()).filter((k) => k.revokedAt === null && presented.startsWith(k.keyPrefix)).map((k) => [k.accountId, k.keyPrefix]));
  const what = throttled.by === 'ip' ? 'from this address' : `with keys starting ${guessed}`;
  for (const [accountId, keyPrefix] of owners) {
    const reason = `too many failed authentications ${what} (TWOFA_AUTH_FAILURE_LIMIT); a request with a key starting ${keyPrefix} was refused, for ${Math.ceil(throttled.retryAfterMs / 1000)} s`;
    // Never throws, unlike a use case's unit of work: the request is refused (429) whatever happens
    // here, and a failed append must not turn that refusal into a 500 that invites more guessing.
    await appendAudit(ctx, { accountId, at: ctx.clock(), event: 'auth.throttled', sourceIp: request.ip, actor: null, reason });
  }
}

function authHook(ctx: ServiceContext, throttle: AuthFailureThrottle) {
  return async function checkAuthorization(request: FastifyRequest, reply: FastifyReply) {
    const scope = request.routeOptions.config.scope;
    if (scope === undefined) return;
    const authorization = request.headers.authorization;
    // Only a request that presents credentials can be a guess; one without any is a plain 401.
    const counted = authorization !== undefined && authorization !== '';
    const ipKey = () => (counted ? ipRateKey(request.ip) : undefined);
    // The Twilio dialect authenticates with HTTP Basic (a SID and the Auth Token or an API key), every other route with the key alone.
    const twilio = request.routeOptions.config.dialect === 'twilio';
    const vonage = request.routeOptions.config.dialect === 'vonage';
    // A Vonage JWT is no guess at a key (every one starts alike, "eyJ"): only its address is counted.
    const presented = () => (!counted ? undefined : twilio || vonage ? basicCredentials(authorization)?.password : presentedApiKey(authorization));
    const prefix = () => {
      const key = presented();
      return key === undefined ? undefined : guessedPrefix(key);
    };
    const now = ctx.clock();
    // Nothing has failed lately (the usual case): nothing to check, nothing computed.
    const throttled = throttle.idle() ? undefined : throttle.check(ipKey(), prefix(), now);
    if (throttled !== undefined) {
      if (throttled.first) await reportThrottled(ctx, request, throttled, presented());
      return sendFailure(reply, { name: 'AUTH_THROTTLED', text: 'Too many failed authentications; try again later', retryAfterMs: throttled.retryAfterMs });
    }
    const vonageCaller = vonage ? await authenticateVonage(ctx, authorization, now) : undefined;
    const principal = vonage ? vonageCaller?.principal : twilio ? await authenticateBasic(ctx.store, authorization, now) : await authenticate(ctx.store, authorization);
    if (!principal) {
      throttle.recordFailure(ipKey(), prefix(), now);
      reply.header('www-authenticate', twilio ? 'Basic realm="twofa"' : vonage || request.routeOptions.config.dialect === 'prelude' ? 'Bearer' : 'App');
      return sendFailure(reply, { name: 'UNAUTHENTICATED', text: twilio ? 'Authentication Error - invalid username or password' : vonage ? 'You did not provide correct credentials.' : 'Invalid login details' });
    }
    if (vonageCaller) request.vonageApplicationId = vonageCaller.applicationId;
    if (!hasScope(principal, scope)) return sendScopeMissing(reply, scope);
    request.principal = { ...principal, ip: request.ip };
  };
}

/** 403 in the route's dialect: the caller's key lacks `scope`. */
export function sendScopeMissing(reply: FastifyReply, scope: string) {
  return sendFailure(reply, { name: 'SCOPE_MISSING', text: `This API key lacks the ${scope} scope` });
}

export const DEFAULT_AUTH_FAILURE_LIMIT: RateLimit = { count: 20, windowMs: 60_000 };

/** Sets `request.principal` on every route that names a scope, or answers 401/403/429. */
export function registerAuth(app: App, options: { ctx: ServiceContext; failureLimit?: RateLimit }): void {
  app.decorateRequest('principal', null as never);
  app.decorateRequest('vonageApplicationId', '');
  app.addHook('onRequest', authHook(options.ctx, new AuthFailureThrottle(options.failureLimit ?? DEFAULT_AUTH_FAILURE_LIMIT)));
}
