import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { putApplicationSender } from '../../../service/routes.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppCountryParamsSchema, ApplicationSenderRequestSchema, ApplicationSenderSchema } from '../../schemas/routes.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/api/v1/applications/:appId/senders/:country', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-application-sender', tags: ['Routes'],
      summary: 'Set the application\'s sender for a country: before the template\'s and the route\'s, after the request\'s; a country that rejects its kind still gets the route\'s fallback',
      params: AppCountryParamsSchema, body: ApplicationSenderRequestSchema,
      response: { 200: ApplicationSenderSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await putApplicationSender(ctx, request.principal, request.params.appId, request.params.country, request.body), (sender) => sender));
};
export default register;
