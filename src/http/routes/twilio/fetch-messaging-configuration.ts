import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getMessagingConfiguration } from '../../../service/twilio-messaging-configurations.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toMessagingConfiguration } from './presenters.js';
import { MessagingConfigurationParams, MessagingConfigurationSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/MessagingConfigurations/:Country', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-fetch-messaging-configuration', summary: 'Fetch a Service\'s Messaging Configuration of a country',
    params: MessagingConfigurationParams,
    response: { 200: MessagingConfigurationSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { ServiceSid, Country } = request.params;
    return respond(reply, await getMessagingConfiguration(ctx, request.principal, ServiceSid, Country), (c) => toMessagingConfiguration(request, c));
  });
};
export default register;
