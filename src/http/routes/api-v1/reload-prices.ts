import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { reloadPriceList } from '../../../service/spend.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { PriceListResponseSchema } from '../../schemas/prices.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/prices/reload', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'reload-prices', tags: ['Budgets'],
      summary: 'Read TWOFA_PRICES_FILE again on this node (as SIGHUP does); an invalid file is refused whole, every bad line named, and the list in force kept',
      response: { 200: PriceListResponseSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (_request, reply) => respond(reply, await reloadPriceList(ctx), (list) => list));
};
export default register;
