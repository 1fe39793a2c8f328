import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { listFactors } from '../../../../service/factors.js';
import { errorResponses, respond } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { EntityParamsSchema, FactorListSchema } from '../../../schemas/api-v1-factors.js';
import { inApplication, serviceOf, toFactor } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/applications/:appId/entities/:identity/factors', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'list-factors', tags: ['Factors'], summary: 'A user\'s factors, oldest first (never their secrets)',
      params: EntityParamsSchema,
      response: { 200: FactorListSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { appId, identity } = request.params;
    return respond(reply, inApplication(appId, await listFactors(ctx, request.principal, serviceOf(appId), identity)), ({ factors, ...scope }) => ({
      factors: factors.map((factor) => toFactor({ ...scope, factor })),
    }));
  });
};
export default register;
