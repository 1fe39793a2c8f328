import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getService } from '../../../service/twilio-services.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toService } from './presenters.js';
import { ServiceSchema, SidParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:Sid', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-fetch-service', summary: 'Fetch a Verify Service',
    params: SidParams,
    response: { 200: ServiceSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => respond(reply, await getService(ctx, request.principal, request.params.Sid), (service) => toService(request, service)));
};
export default register;
