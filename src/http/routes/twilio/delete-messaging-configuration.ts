import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteMessagingConfiguration } from '../../../service/twilio-messaging-configurations.js';
import { respondNoContent, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { MessagingConfigurationParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/Services/:ServiceSid/MessagingConfigurations/:Country', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-delete-messaging-configuration', summary: 'Delete a Service\'s Messaging Configuration of a country',
    params: MessagingConfigurationParams,
    response: { 204: { type: 'null', description: 'Deleted.' }, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    return respondNoContent(reply, await deleteMessagingConfiguration(ctx, request.principal, request.params.ServiceSid, request.params.Country));
  });
};
export default register;
