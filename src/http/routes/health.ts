import { Type } from 'typebox';
import type { RegisterRoute } from '../route-types.js';

const register: RegisterRoute = (app, { ctx, isReady, deliveryHealth }) => {
  const Alive = Type.Union([
    Type.Object({ status: Type.Literal('ok') }),
    Type.Object({ status: Type.Literal('degraded'), reason: Type.String() }),
  ], { description: 'The process is alive; `degraded` (with the reason) when queued messages wait longer than TWOFA_DELIVERY_DEGRADED_AFTER.' });
  const Ready = Type.Object({ status: Type.Literal('ready') }, { description: 'The node can serve requests.' });
  const NotReady = Type.Object({ status: Type.String() }, { description: 'The node cannot serve: "shutting down" or "database unreachable".' });
  app.get('/healthz', { schema: { operationId: 'healthz', tags: ['Operations'], summary: 'The process is alive, and whether delivery keeps up', response: { 200: Alive } } }, async () => {
    const reason = await deliveryHealth?.();
    return reason === undefined ? { status: 'ok' as const } : { status: 'degraded' as const, reason };
  });
  app.get('/readyz', {
    schema: { operationId: 'readyz', tags: ['Operations'], summary: 'The node can serve: database reachable, not shutting down', response: { 200: Ready, 503: NotReady } },
  }, async (request, reply) => {
    if (!isReady()) return reply.code(503).send({ status: 'shutting down' });
    try {
      await ctx.store.ping();
      return { status: 'ready' as const };
    } catch (err) {
      request.log.warn({ err }, 'database unreachable');
      return reply.code(503).send({ status: 'database unreachable' });
    }
  });
};
export default register;
