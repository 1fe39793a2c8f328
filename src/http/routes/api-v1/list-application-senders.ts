import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listApplicationSenders } from '../../../service/routes.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';
import { ApplicationSendersResponseSchema } from '../../schemas/routes.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/applications/:appId/senders', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'list-application-senders', tags: ['Routes'], summary: 'The application\'s own senders per country (its brand)',
      params: AppIdParamsSchema,
      response: { 200: ApplicationSendersResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await listApplicationSenders(ctx, request.principal, request.params.appId), (senders) => ({ senders })));
};
export default register;
