import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { createAccountKey } from '../../../service/console-keys.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { CreateApiKeyRequestSchema, CreatedApiKeySchema } from '../../schemas/api-v1.js';
import { toCreatedApiKeyResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/keys', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'create-api-key', tags: ['API keys'], summary: 'Create an API key in the caller\'s account; the key is in this answer only',
      body: CreateApiKeyRequestSchema,
      response: { 200: CreatedApiKeySchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    // Nobody should cache or log the one answer that holds the key.
    reply.header('cache-control', 'no-store');
    const { label, scopes } = request.body;
    return respond(reply, await createAccountKey(ctx, request.principal, { label: label ?? null, scopes }), toCreatedApiKeyResponse);
  });
};
export default register;
