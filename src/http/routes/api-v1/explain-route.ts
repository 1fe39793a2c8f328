import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { explainRoute } from '../../../service/routes.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { RouteExplainQuerySchema, RouteExplainResponseSchema } from '../../schemas/routes.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/routes/explain', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'explain-route', tags: ['Routes'],
      summary: 'Which rule a number matches and why, its transports in order with their prices and conversions, its sender and regulatory fields',
      querystring: RouteExplainQuerySchema,
      response: { 200: RouteExplainResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await explainRoute(ctx, request.principal, request.query), (plan) => plan));
};
export default register;
