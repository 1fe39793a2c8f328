import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getBudget } from '../../../service/budgets.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';
import { BudgetResponseSchema } from '../../schemas/prices.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/applications/:appId/budget', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-application-budget', tags: ['Budgets'],
      summary: 'An application\'s budget: its daily and monthly caps (per country too) and what today and this month spent',
      params: AppIdParamsSchema,
      response: { 200: BudgetResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await getBudget(ctx, request.principal, request.params.appId), (view) => view));
};
export default register;
