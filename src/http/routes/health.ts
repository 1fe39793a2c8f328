import { Type } from 'typebox';
import type { RegisterRoute } from '../route-types.js';

const register: RegisterRoute = (app, { ctx, isReady }) => {
  const Alive = Type.Object({ status: Type.Literal('ok') }, { description: 'The process is alive.' });
  const Ready = Type.Object({ status: Type.Literal('ready') }, { description: 'The node can serve requests.' });
  const NotReady = Type.Object({ status: Type.String() }, { description: 'The node cannot serve: "shutting down" or "database unreachable".' });
  app.get('/healthz', { schema: { operationId: 'healthz', tags: ['Operations'], summary: 'The process is alive', response: { 200: Alive } } }, async () => ({ status: 'ok' as const }));
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
