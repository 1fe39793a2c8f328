import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listRiskDecisions } from '../../../service/risk.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { RiskDecisionsQuerySchema, RiskDecisionsResponseSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/risk/decisions', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'list-risk-decisions', tags: ['Security'],
      summary: 'Risk decisions with their score and signals, newest first (every block and shadow block, a sample of the sends allowed)',
      querystring: RiskDecisionsQuerySchema,
      response: { 200: RiskDecisionsResponseSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { since, until, limit, ...rest } = request.query;
    return respond(reply, await listRiskDecisions(ctx, request.principal, {
      ...rest,
      ...(since !== undefined ? { since: Number(since) } : {}),
      ...(until !== undefined ? { until: Number(until) } : {}),
      ...(limit !== undefined ? { limit: Number(limit) } : {}),
    }), (page) => page);
  });
};
export default register;
