import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getVonageApplication } from '../../../service/vonage-applications.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { ApplicationIdParamsSchema, VonageApplicationSchema } from '../../schemas/api-v1.js';
import { toVonageApplication } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/vonage/applications/:applicationId', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-vonage-application', tags: ['Vonage Verify'],
      summary: 'The public key the application\'s Vonage JWTs are checked with (404 when none is registered)',
      params: ApplicationIdParamsSchema,
      response: { 200: VonageApplicationSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const result = await getVonageApplication(ctx, request.principal, request.params.applicationId);
    return respond(reply, result, toVonageApplication);
  });
};
export default register;
