import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { deleteFactor } from '../../../../service/factors.js';
import { errorResponses, respondNoContent } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { FactorParamsSchema } from '../../../schemas/api-v1-factors.js';
import { inApplication, serviceOf } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/api/v1/applications/:appId/entities/:identity/factors/:factorSid', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'delete-factor', tags: ['Factors'], summary: 'Delete a factor with its challenges',
      params: FactorParamsSchema,
      response: { 204: { type: 'null', description: 'Deleted; no body.' }, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { appId, identity, factorSid } = request.params;
    return respondNoContent(reply, inApplication(appId, await deleteFactor(ctx, request.principal, serviceOf(appId), identity, factorSid)));
  });
};
export default register;
