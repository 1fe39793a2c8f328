import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { putWorkflow } from '../../../service/workflows.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { WorkflowSchema } from '../../schemas/api-v1.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/api/v1/applications/:appId/workflow', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-application-workflow', tags: ['Workflows'],
      summary: 'Set an application\'s workflow; later sends through any dialect follow it',
      params: AppIdParamsSchema, body: WorkflowSchema,
      response: { 200: WorkflowSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await putWorkflow(ctx, request.principal, request.params.appId, request.body), (view) => view));
};
export default register;
