// Authentication comes first, before the body is even parsed: an unauthenticated request is a 401
// whatever else is wrong with it. Routes name the scope they need in their config.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from '../service/api-keys.js';
import type { Principal } from '../service/context.js';
import type { Store } from '../store/store.js';
import { authenticateBasic } from '../service/twilio-credentials.js';
import { sendFailure } from './error-envelope.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Scope the caller's key must hold; routes without one are public (health, docs). */
    scope?: string;
  }
  interface FastifyRequest {
    principal: Principal;
  }
}

export function authHook(store: Store) {
  return async function checkAuthorization(request: FastifyRequest, reply: FastifyReply) {
    const scope = request.routeOptions.config.scope;
    if (scope === undefined) return;
    // The Twilio dialect authenticates with HTTP Basic (account SID and API key), every other route with the key alone.
    const twilio = request.routeOptions.config.dialect === 'twilio';
    const principal = twilio ? await authenticateBasic(store, request.headers.authorization) : await authenticate(store, request.headers.authorization);
    if (!principal) {
      reply.header('www-authenticate', twilio ? 'Basic realm="twofa"' : 'App');
      return sendFailure(reply, { code: 'UNAUTHORIZED', text: twilio ? 'Authentication Error - invalid username or password' : 'Invalid login details' });
    }
    // 2fa:manage is Infobip's superset scope: it is listed on every 2FA endpoint.
    if (!principal.scopes.includes(scope) && !principal.scopes.includes('2fa:manage')) {
      return sendFailure(reply, { code: 'FORBIDDEN', text: `This API key lacks the ${scope} scope` });
    }
    request.principal = { ...principal, ip: request.ip };
  };
}
