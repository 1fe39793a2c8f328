import { Type } from 'typebox';
import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteApplicationSender } from '../../../service/routes.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppCountryParamsSchema } from '../../schemas/routes.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/api/v1/applications/:appId/senders/:country', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'delete-application-sender', tags: ['Routes'], summary: 'Remove the application\'s sender for a country',
      params: AppCountryParamsSchema,
      response: { 200: Type.Object({ deleted: Type.Literal(true) }, { description: 'The sender is removed: the template\'s and the route\'s apply again.' }), ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await deleteApplicationSender(ctx, request.principal, request.params.appId, request.params.country), (v) => v));
};
export default register;
