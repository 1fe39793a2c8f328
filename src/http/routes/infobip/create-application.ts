import { createApplication } from '../../../service/applications.js';
import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { ApplicationRequestSchema, ApplicationResponseSchema } from '../../schemas/infobip.js';
import { toApplicationResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  // 200, not Infobip's documented 201: every official SDK expects 200 (the Python one reads 201 as no answer).
  app.post('/2fa/2/applications', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'create-2fa-application', tags: ['2FA applications'], summary: 'Create a 2FA application',
      body: ApplicationRequestSchema,
      response: { 200: ApplicationResponseSchema, ...errorResponses(400, 401, 403, 429) },
    },
  }, async (request, reply) => respond(reply, await createApplication(ctx, request.principal, request.body), toApplicationResponse));
};
export default register;
