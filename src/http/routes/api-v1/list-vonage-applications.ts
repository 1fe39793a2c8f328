import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listVonageApplications } from '../../../service/vonage-applications.js';
import { errorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { VonageApplicationListSchema } from '../../schemas/api-v1.js';
import { toVonageApplication } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/vonage/applications', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'list-vonage-applications', tags: ['Vonage Verify'],
      summary: 'The account\'s Vonage applications: their public keys and callback URLs',
      response: { 200: VonageApplicationListSchema, ...errorResponses(401, 403) },
    },
  }, async (request) => ({ applications: (await listVonageApplications(ctx, request.principal)).map((row) => toVonageApplication(row)) }));
};
export default register;
