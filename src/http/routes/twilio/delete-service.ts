import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteService } from '../../../service/twilio-services.js';
import { respondNoContent, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { SidParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/Services/:Sid', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-delete-service',
    summary: 'Delete a Verify Service: its application is disabled (Infobip\'s API still lists it) and the Service is gone',
    params: SidParams,
    response: { 204: { type: 'null', description: 'Deleted.' }, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    return respondNoContent(reply, await deleteService(ctx, request.principal, request.params.Sid));
  });
};
export default register;
