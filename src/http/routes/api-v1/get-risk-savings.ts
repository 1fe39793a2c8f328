import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { riskSavings } from '../../../service/risk.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { RiskSavingsQuerySchema, RiskSavingsResponseSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/risk/savings', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-risk-savings', tags: ['Security'],
      summary: 'What the risk score\'s blocks saved and its shadow blocks would have saved, per currency of the messages\' estimated prices',
      querystring: RiskSavingsQuerySchema,
      response: { 200: RiskSavingsResponseSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { applicationId, since, until } = request.query;
    return respond(reply, await riskSavings(ctx, request.principal, {
      ...(applicationId !== undefined ? { applicationId } : {}),
      ...(since !== undefined ? { since: Number(since) } : {}),
      ...(until !== undefined ? { until: Number(until) } : {}),
    }), (savings) => savings);
  });
};
export default register;
