import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { createMessagingConfiguration } from '../../../service/twilio-messaging-configurations.js';
import { respondCreated, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toMessagingConfiguration } from './presenters.js';
import { CreateMessagingConfigurationBody, FORM, MessagingConfigurationSchema, ServiceSidParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/MessagingConfigurations', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-create-messaging-configuration', summary: 'Name a messaging service for a country (stored, not applied)',
    consumes: FORM, params: ServiceSidParams, body: CreateMessagingConfigurationBody,
    response: { 201: MessagingConfigurationSchema, ...twilioErrorResponses(400, 401, 403, 404, 409) },
  }), async (request, reply) => {
    const result = await createMessagingConfiguration(ctx, request.principal, request.params.ServiceSid, { country: request.body.Country, messagingServiceSid: request.body.MessagingServiceSid });
    return respondCreated(reply, result, (created) => toMessagingConfiguration(request, created));
  });
};
export default register;
