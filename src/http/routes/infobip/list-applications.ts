import { Type } from 'typebox';
import { listApplications } from '../../../service/applications.js';
import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { errorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { ApplicationResponseSchema } from '../../schemas/infobip.js';
import { toApplicationResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/2fa/2/applications', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-2fa-applications', tags: ['2FA applications'], summary: 'List 2FA applications',
      response: { 200: Type.Array(ApplicationResponseSchema, { description: 'The account\'s 2FA applications.' }), ...errorResponses(401, 403) },
    },
  }, async (request) => (await listApplications(ctx, request.principal)).map(toApplicationResponse));
};
export default register;
