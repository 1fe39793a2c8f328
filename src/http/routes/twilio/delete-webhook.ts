import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteWebhook } from '../../../service/twilio-webhooks.js';
import { respondNoContent, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { WebhookParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/Services/:ServiceSid/Webhooks/:Sid', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-delete-webhook', summary: 'Delete a Webhook; its events still waiting are dropped',
    params: WebhookParams,
    response: { 204: { type: 'null', description: 'Deleted.' }, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    return respondNoContent(reply, await deleteWebhook(ctx, request.principal, request.params.ServiceSid, request.params.Sid));
  });
};
export default register;
