import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updateWebhook } from '../../../service/webhooks.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { UpdateWebhookRequestSchema, WebhookIdParamsSchema, WebhookResponseSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/api/v1/webhooks/:webhookId', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-webhook', tags: ['Webhooks'],
      summary: 'Change a webhook subscription\'s url, events, enabled flag or secret (fields left out keep their values)',
      params: WebhookIdParamsSchema, body: UpdateWebhookRequestSchema,
      response: { 200: WebhookResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await updateWebhook(ctx, request.principal, request.params.webhookId, request.body ?? {}), (webhook) => webhook));
};
export default register;
