import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listServices } from '../../../service/twilio-services.js';
import { twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { listPage, toService } from './presenters.js';
import { PageQuery, ServicePageSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-list-services', summary: 'List the account\'s Verify Services (every application), oldest first, in pages',
    querystring: PageQuery,
    response: { 200: ServicePageSchema, ...twilioErrorResponses(400, 401, 403) },
  }), async (request) => {
    return listPage(request, '/Services', 'services', await listServices(ctx, request.principal), (s) => toService(request, s));
  });
};
export default register;
