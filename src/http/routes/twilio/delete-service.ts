import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteService } from '../../../service/twilio-services.js';
import { sendFailure, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { SidParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/Services/:Sid', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-delete-service', tags: ['Twilio Verify'],
      summary: 'Delete a Verify Service: its application is disabled (Infobip\'s API still lists it) and the Service is gone',
      params: SidParams,
      response: { 204: { type: 'null', description: 'Deleted.' }, ...twilioErrorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const result = await deleteService(ctx, request.principal, request.params.Sid);
    if (!result.ok) return sendFailure(reply, result.failure);
    return reply.code(204).send(null);
  });
};
export default register;
