import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { putBudget } from '../../../service/budgets.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { BudgetRequestSchema, BudgetResponseSchema } from '../../schemas/prices.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/api/v1/budget', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-budget', tags: ['Budgets'],
      summary: 'Set the account\'s budget: a daily and a monthly cap in a currency, optionally per country; a send whose price would pass a cap is refused',
      body: BudgetRequestSchema,
      response: { 200: BudgetResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await putBudget(ctx, request.principal, null, request.body), (view) => view));
};
export default register;
