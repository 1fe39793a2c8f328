import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listAccountKeys } from '../../../service/console-keys.js';
import { errorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { ApiKeyListResponseSchema } from '../../schemas/api-v1.js';
import { toApiKeyResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/keys', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'list-api-keys', tags: ['API keys'], summary: 'The account\'s API keys (never a key itself)',
      response: { 200: ApiKeyListResponseSchema, ...errorResponses(401, 403) },
    },
  }, async (request) => ({ keys: (await listAccountKeys(ctx, request.principal)).map(toApiKeyResponse) }));
};
export default register;
