import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteWebhook } from '../../../service/webhooks.js';
import { errorResponses, respondNoContent } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { WebhookIdParamsSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/api/v1/webhooks/:webhookId', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'delete-webhook', tags: ['Webhooks'], summary: 'Delete a webhook subscription; its undelivered events are dropped',
      params: WebhookIdParamsSchema,
      response: { 204: { type: 'null', description: 'Deleted; no body.' }, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    return respondNoContent(reply, await deleteWebhook(ctx, request.principal, request.params.webhookId));
  });
};
export default register;
