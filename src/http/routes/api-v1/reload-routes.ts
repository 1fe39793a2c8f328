import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { reloadRoutes } from '../../../service/routes.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { RoutesResponseSchema } from '../../schemas/routes.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/routes/reload', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'reload-routes', tags: ['Routes'],
      summary: 'Read the configured routes table again on this node (as SIGHUP does); an invalid table is refused whole (409) and the current one stays',
      response: { 200: RoutesResponseSchema, ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (_request, reply) => respond(reply, reloadRoutes(ctx), (view) => view));
};
export default register;
