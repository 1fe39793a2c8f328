import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteVonageApplication } from '../../../service/vonage-applications.js';
import { errorResponses, respondNoContent } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { ApplicationIdParamsSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/api/v1/vonage/applications/:applicationId', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'delete-vonage-application', tags: ['Vonage Verify'],
      summary: 'Remove the application\'s public key: its Vonage JWTs no longer log in (Basic logins still do)',
      params: ApplicationIdParamsSchema,
      response: { 204: { type: 'null', description: 'Removed.' }, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respondNoContent(reply, await deleteVonageApplication(ctx, request.principal, request.params.applicationId)));
};
export default register;
