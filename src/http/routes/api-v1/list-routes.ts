import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listRoutes } from '../../../service/routes.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { RoutesResponseSchema } from '../../schemas/routes.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/routes', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'list-routes', tags: ['Routes'], summary: 'The routes table in force and the named transports',
      response: { 200: RoutesResponseSchema, ...errorResponses(401, 403, 404) },
    },
  }, async (_request, reply) => respond(reply, listRoutes(ctx), (view) => view));
};
export default register;
