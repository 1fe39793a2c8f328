import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getStats } from '../../../service/console-stats.js';
import { errorResponses, respond } from '../../error-envelope.js';
import { definedFields, numberOrUndefined } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { StatsQuerySchema, StatsResponseSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/stats', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-stats', tags: ['Statistics'], summary: 'Sends, deliveries and verifications over time, conversion per channel and country, delivery latency, refusals',
      querystring: StatsQuerySchema,
      response: { 200: StatsResponseSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const q = request.query;
    return respond(reply, await getStats(ctx, request.principal, definedFields({ from: numberOrUndefined(q.from), to: numberOrUndefined(q.to), bucket: q.bucket })), (stats) => stats);
  });
};
export default register;
