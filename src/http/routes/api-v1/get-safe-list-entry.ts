import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getSafeListEntry } from '../../../service/twilio-safe-list.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { SafeListEntrySchema, SafeListParamsSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/safe-list/:entry', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-safe-list-entry', tags: ['Security'], summary: 'Whether a number (+41791234567) or a prefix (+4179*) is on the account\'s Safe List (404 when not)',
      params: SafeListParamsSchema,
      response: { 200: SafeListEntrySchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await getSafeListEntry(ctx, request.principal, request.params.entry), (entry) => entry));
};
export default register;
