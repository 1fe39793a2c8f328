import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getWebhook } from '../../../service/webhooks.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { WebhookIdParamsSchema, WebhookResponseSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/webhooks/:webhookId', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-webhook', tags: ['Webhooks'], summary: 'Get a webhook subscription (without its secret)',
      params: WebhookIdParamsSchema,
      response: { 200: WebhookResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await getWebhook(ctx, request.principal, request.params.webhookId), (webhook) => webhook));
};
export default register;
