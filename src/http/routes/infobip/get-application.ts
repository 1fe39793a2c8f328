import { getApplication } from '../../../service/applications.js';
import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema, ApplicationResponseSchema } from '../../schemas/infobip.js';
import { toApplicationResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/2fa/2/applications/:appId', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-2fa-application', tags: ['2FA applications'], summary: 'Get a 2FA application',
      params: AppIdParamsSchema,
      response: { 200: ApplicationResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await getApplication(ctx, request.principal, request.params.appId), toApplicationResponse));
};
export default register;
