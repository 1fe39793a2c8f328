import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteBudget } from '../../../service/budgets.js';
import { errorResponses, respondNoContent } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/api/v1/budget', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'delete-budget', tags: ['Budgets'],
      summary: 'Remove the account\'s budget: its sends are no longer capped (their spend is still recorded)',
      response: { 204: { type: 'null', description: 'Removed; no body.' }, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respondNoContent(reply, await deleteBudget(ctx, request.principal, null)));
};
export default register;
