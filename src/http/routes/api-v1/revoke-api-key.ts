import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { revokeAccountKey } from '../../../service/console-keys.js';
import { errorResponses, respondNoContent } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { ApiKeyIdParamsSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/api/v1/keys/:id', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'revoke-api-key', tags: ['API keys'], summary: 'Revoke an API key of the account (at once, for good; revoking twice is harmless)',
      params: ApiKeyIdParamsSchema,
      response: { 204: { type: 'null', description: 'Revoked; no body.' }, ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (request, reply) => {
    return respondNoContent(reply, await revokeAccountKey(ctx, request.principal, request.params.id));
  });
};
export default register;
