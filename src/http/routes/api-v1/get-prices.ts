import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getPriceList } from '../../../service/spend.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { PriceListResponseSchema } from '../../schemas/prices.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/prices', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-prices', tags: ['Budgets'], summary: 'The price list in force on this node (TWOFA_PRICES_FILE)',
      response: { 200: PriceListResponseSchema, ...errorResponses(401, 403) },
    },
  }, async (_request, reply) => respond(reply, getPriceList(ctx), (list) => list));
};
export default register;
