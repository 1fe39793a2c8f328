import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteBudget } from '../../../service/budgets.js';
import { errorResponses, respondNoContent } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/api/v1/applications/:appId/budget', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'delete-application-budget', tags: ['Budgets'],
      summary: 'Remove an application\'s budget (the account\'s, if any, still applies)',
      params: AppIdParamsSchema,
      response: { 204: { type: 'null', description: 'Removed; no body.' }, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respondNoContent(reply, await deleteBudget(ctx, request.principal, request.params.appId)));
};
export default register;
