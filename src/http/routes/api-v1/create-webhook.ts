import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { createWebhook } from '../../../service/webhooks.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { CreatedWebhookResponseSchema, CreateWebhookRequestSchema } from '../../schemas/api-v1.js';
import { toCreatedWebhookResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/webhooks', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'create-webhook', tags: ['Webhooks'],
      summary: 'Subscribe a URL to PIN events (signed per Standard Webhooks); the answer shows the signing secret once',
      body: CreateWebhookRequestSchema,
      response: { 200: CreatedWebhookResponseSchema, ...errorResponses(400, 401, 403, 409) },
    },
  }, async (request, reply) => respond(reply, await createWebhook(ctx, request.principal, request.body), toCreatedWebhookResponse));
};
export default register;
