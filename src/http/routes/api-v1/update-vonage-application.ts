import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { putVonageApplication } from '../../../service/vonage-applications.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { ApplicationIdParamsSchema, VonageApplicationBodySchema, VonageApplicationSchema } from '../../schemas/api-v1.js';
import { toVonageApplicationView } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/api/v1/vonage/applications/:applicationId', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-vonage-application', tags: ['Vonage Verify'],
      summary: 'Register the application, or change its public key, its callback URL or its signature secret (what is left out keeps its value)',
      params: ApplicationIdParamsSchema,
      body: VonageApplicationBodySchema,
      response: { 200: VonageApplicationSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
  }, async (request, reply) => {
    const result = await putVonageApplication(ctx, request.principal, request.params.applicationId, request.body);
    return respond(reply, result, toVonageApplicationView);
  });
};
export default register;
