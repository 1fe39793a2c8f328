import { Type } from 'typebox';
import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listWebhooks } from '../../../service/webhooks.js';
import { errorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { WebhookResponseSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/webhooks', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'list-webhooks', tags: ['Webhooks'], summary: 'List the account\'s webhook subscriptions (without their secrets)',
      response: { 200: Type.Array(WebhookResponseSchema, { description: 'The account\'s webhook subscriptions, oldest first.' }), ...errorResponses(401, 403) },
    },
  }, async (request) => listWebhooks(ctx, request.principal));
};
export default register;
