import { updateApplication } from '../../../service/applications.js';
import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema, ApplicationRequestSchema, ApplicationResponseSchema } from '../../schemas/infobip.js';
import { toApplicationResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/2fa/2/applications/:appId', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-2fa-application', tags: ['2FA applications'],
      summary: 'Update a 2FA application (fields left out keep their value)',
      params: AppIdParamsSchema, body: ApplicationRequestSchema,
      response: { 200: ApplicationResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await updateApplication(ctx, request.principal, request.params.appId, request.body), toApplicationResponse));
};
export default register;
