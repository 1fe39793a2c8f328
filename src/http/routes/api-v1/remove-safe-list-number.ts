import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { removeSafeListNumber } from '../../../service/twilio-safe-list.js';
import { errorResponses, respondNoContent } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { SafeListParamsSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/api/v1/safe-list/:phoneNumber', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'remove-safe-list-number', tags: ['Security'], summary: 'Take a number off the account\'s Safe List',
      params: SafeListParamsSchema,
      response: { 204: { type: 'null', description: 'Removed; no body.' }, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respondNoContent(reply, await removeSafeListNumber(ctx, request.principal, request.params.phoneNumber)));
};
export default register;
