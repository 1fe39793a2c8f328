import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { removeSafeListEntry } from '../../../service/twilio-safe-list.js';
import { errorResponses, respondNoContent } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { SafeListParamsSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/api/v1/safe-list/:entry', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'remove-safe-list-entry', tags: ['Security'], summary: 'Take a number (+41791234567) or a prefix (+4179*) off the account\'s Safe List',
      params: SafeListParamsSchema,
      response: { 204: { type: 'null', description: 'Removed; no body.' }, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respondNoContent(reply, await removeSafeListEntry(ctx, request.principal, request.params.entry)));
};
export default register;
