// Authentication comes first, before the body is even parsed: an unauthenticated request is a 401
// whatever else is wrong with it. Routes name the scope they need in their config.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from '../service/api-keys.js';
import type { Principal } from '../service/context.js';
import type { Store } from '../store/store.js';
import { envelope } from './error-envelope.js';

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
    const principal = await authenticate(store, request.headers.authorization);
    if (!principal) {
      return reply.code(401).header('www-authenticate', 'App').send(envelope('UNAUTHORIZED', 'Invalid login details'));
    }
    // 2fa:manage is Infobip's superset scope: it is listed on every 2FA endpoint.
    if (!principal.scopes.includes(scope) && !principal.scopes.includes('2fa:manage')) {
      return reply.code(403).send(envelope('FORBIDDEN', `This API key lacks the ${scope} scope`));
    }
    request.principal = { ...principal, ip: request.ip };
  };
}
