import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getSecurity } from '../../../service/security.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { SecurityResponseSchema } from '../../schemas/api-v1.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/applications/:appId/security', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-application-security', tags: ['Security'],
      summary: 'An application\'s anti-fraud settings, active breaker blocks and brute-force budget',
      params: AppIdParamsSchema,
      response: { 200: SecurityResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await getSecurity(ctx, request.principal, request.params.appId), (view) => view));
};
export default register;
