import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteWebhook } from '../../../service/twilio-webhooks.js';
import { sendFailure, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { WebhookParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/Services/:ServiceSid/Webhooks/:Sid', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-delete-webhook', tags: ['Twilio Verify'], summary: 'Delete a Webhook; its events still waiting are dropped',
      params: WebhookParams,
      response: { 204: { type: 'null', description: 'Deleted.' }, ...twilioErrorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const result = await deleteWebhook(ctx, request.principal, request.params.ServiceSid, request.params.Sid);
    if (!result.ok) return sendFailure(reply, result.failure);
    return reply.code(204).send(null);
  });
};
export default register;
