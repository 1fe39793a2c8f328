import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteMessagingConfiguration } from '../../../service/twilio-messaging-configurations.js';
import { sendFailure, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { MessagingConfigurationParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/Services/:ServiceSid/MessagingConfigurations/:Country', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-delete-messaging-configuration', tags: ['Twilio Verify'], summary: 'Delete a Service\'s Messaging Configuration of a country',
      params: MessagingConfigurationParams,
      response: { 204: { type: 'null', description: 'Deleted.' }, ...twilioErrorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const result = await deleteMessagingConfiguration(ctx, request.principal, request.params.ServiceSid, request.params.Country);
    if (!result.ok) return sendFailure(reply, result.failure);
    return reply.code(204).send(null);
  });
};
export default register;
