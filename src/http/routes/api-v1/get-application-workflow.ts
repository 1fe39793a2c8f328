import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getWorkflow } from '../../../service/workflows.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { WorkflowSchema } from '../../schemas/api-v1.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/applications/:appId/workflow', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-application-workflow', tags: ['Workflows'],
      summary: 'An application\'s workflow: the channels a PIN goes out on in turn (no steps: none)',
      params: AppIdParamsSchema,
      response: { 200: WorkflowSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await getWorkflow(ctx, request.principal, request.params.appId), (view) => view));
};
export default register;
