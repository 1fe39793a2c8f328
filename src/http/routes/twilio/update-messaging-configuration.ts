import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updateMessagingConfiguration } from '../../../service/twilio-messaging-configurations.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toMessagingConfiguration } from './presenters.js';
import { FORM, MessagingConfigurationParams, MessagingConfigurationSchema, UpdateMessagingConfigurationBody } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/MessagingConfigurations/:Country', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-update-messaging-configuration', summary: 'Change the messaging service of a country',
    consumes: FORM, params: MessagingConfigurationParams, body: UpdateMessagingConfigurationBody,
    response: { 200: MessagingConfigurationSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { ServiceSid, Country } = request.params;
    const result = await updateMessagingConfiguration(ctx, request.principal, ServiceSid, Country, { messagingServiceSid: request.body.MessagingServiceSid });
    return respond(reply, result, (c) => toMessagingConfiguration(request, c));
  });
};
export default register;
