import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getWebhook } from '../../../service/twilio-webhooks.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toWebhook } from './presenters.js';
import { WebhookParams, WebhookSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/Webhooks/:Sid', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-fetch-webhook', summary: 'Fetch a Webhook of a Service',
    params: WebhookParams,
    response: { 200: WebhookSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => respond(reply, await getWebhook(ctx, request.principal, request.params.ServiceSid, request.params.Sid), (w) => toWebhook(request, w)));
};
export default register;
