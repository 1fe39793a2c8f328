import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { rotateVonageSignatureSecret } from '../../../service/vonage-applications.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { ApplicationIdParamsSchema, VonageApplicationSchema } from '../../schemas/api-v1.js';
import { toVonageApplicationView } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/vonage/applications/:applicationId/signature-secret', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'rotate-vonage-signature-secret', tags: ['Vonage Verify'],
      summary: 'A new signature secret for the application\'s Verify callbacks, shown in this answer only; callbacks are signed with it from now on',
      params: ApplicationIdParamsSchema,
      response: { 200: VonageApplicationSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await rotateVonageSignatureSecret(ctx, request.principal, request.params.applicationId), toVonageApplicationView));
};
export default register;
