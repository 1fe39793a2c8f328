import type { RegisterRoute } from '../route-types.js';

const register: RegisterRoute = (app, { metrics }) => {
  app.get('/metrics', {
    schema: {
      operationId: 'metrics', tags: ['Operations'], summary: 'Prometheus metrics (text exposition format)',
      // Declared by media type: the handler sends text with its own content type, which Fastify never JSON-serialises.
      response: { 200: { description: 'Metrics in the Prometheus text exposition format (version 0.0.4).', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
};
export default register;
