import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteWorkflow } from '../../../service/workflows.js';
import { errorResponses, respondNoContent } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/api/v1/applications/:appId/workflow', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'delete-application-workflow', tags: ['Workflows'],
      summary: 'Remove an application\'s workflow: later sends go out on the channel asked for (PINs already sent keep their steps)',
      params: AppIdParamsSchema,
      response: { 204: { type: 'null', description: 'Removed (or there was none); no body.' }, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    return respondNoContent(reply, await deleteWorkflow(ctx, request.principal, request.params.appId));
  });
};
export default register;
