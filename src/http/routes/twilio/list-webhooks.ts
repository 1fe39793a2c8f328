import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listWebhooks } from '../../../service/twilio-webhooks.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { listPage, toWebhook } from './presenters.js';
import { PageQuery, ServiceSidParams, WebhookPageSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/Webhooks', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-list-webhooks', summary: 'List a Service\'s Webhooks, oldest first, in pages',
    params: ServiceSidParams, querystring: PageQuery,
    response: { 200: WebhookPageSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => respond(reply, await listWebhooks(ctx, request.principal, request.params.ServiceSid), (all) => (
    listPage(request, `/Services/${request.params.ServiceSid}/Webhooks`, 'webhooks', all, (w) => toWebhook(request, w))
  )));
};
export default register;
