import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updateService } from '../../../service/twilio-services.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { serviceChanges, toService } from './presenters.js';
import { FORM, ServiceSchema, SidParams, UpdateServiceBody } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:Sid', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-update-service', summary: 'Update a Verify Service: parameters left out keep their values',
    consumes: FORM, params: SidParams, body: UpdateServiceBody,
    response: { 200: ServiceSchema, ...twilioErrorResponses(400, 401, 403, 404, 429) },
  }), async (request, reply) => {
    const body = request.body as Record<string, string | undefined>;
    const result = await updateService(ctx, request.principal, request.params.Sid, serviceChanges(body));
    return respond(reply, result, (service) => toService(request, service));
  });
};
export default register;
