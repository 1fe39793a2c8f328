import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listServices } from '../../../service/twilio-services.js';
import { twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { page, toService } from './presenters.js';
import { PageQuery, ServicePageSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-list-services', tags: ['Twilio Verify'], summary: 'List the account\'s Verify Services (every application), oldest first, in pages',
      querystring: PageQuery,
      response: { 200: ServicePageSchema, ...twilioErrorResponses(400, 401, 403) },
    },
  }, async (request) => {
    const services = await listServices(ctx, request.principal);
    const { items, meta } = page(request, '/Services', 'services', services, request.query);
    return { services: items.map((s) => toService(request, s)), meta };
  });
};
export default register;
