import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getSpend } from '../../../service/spend.js';
import { errorResponses, respond } from '../../error-envelope.js';
import { definedFields } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { SpendQuerySchema, SpendResponseSchema } from '../../schemas/prices.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/stats/spend', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-spend', tags: ['Statistics'], summary: 'What the account\'s messages cost over a range, by country, transport or application and currency; unpriced messages counted apart',
      querystring: SpendQuerySchema,
      response: { 200: SpendResponseSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { by, from, to } = request.query;
    return respond(reply, await getSpend(ctx, request.principal, definedFields({ by, from, to })), (spend) => spend);
  });
};
export default register;
