import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listMessagingConfigurations } from '../../../service/twilio-messaging-configurations.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { listPage, toMessagingConfiguration } from './presenters.js';
import { MessagingConfigurationPageSchema, PageQuery, ServiceSidParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/MessagingConfigurations', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-list-messaging-configurations', summary: 'List a Service\'s Messaging Configurations, by country, in pages',
    params: ServiceSidParams, querystring: PageQuery,
    response: { 200: MessagingConfigurationPageSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => respond(reply, await listMessagingConfigurations(ctx, request.principal, request.params.ServiceSid), (all) => (
    listPage(request, `/Services/${request.params.ServiceSid}/MessagingConfigurations`, 'messaging_configurations', all, (c) => toMessagingConfiguration(request, c))
  )));
};
export default register;
