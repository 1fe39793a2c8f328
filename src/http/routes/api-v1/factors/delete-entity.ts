import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { deleteEntity } from '../../../../service/factors.js';
import { errorResponses, respondNoContent } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { EntityParamsSchema } from '../../../schemas/api-v1-factors.js';
import { inApplication, serviceOf } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/api/v1/applications/:appId/entities/:identity', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'delete-entity', tags: ['Factors'], summary: 'Delete a user\'s entity with all its factors and challenges',
      params: EntityParamsSchema,
      response: { 204: { type: 'null', description: 'Deleted; no body.' }, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { appId, identity } = request.params;
    return respondNoContent(reply, inApplication(appId, await deleteEntity(ctx, request.principal, serviceOf(appId), identity)));
  });
};
export default register;
