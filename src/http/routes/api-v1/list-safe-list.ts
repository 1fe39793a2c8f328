import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listSafeList } from '../../../service/twilio-safe-list.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { SafeListResponseSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/safe-list', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'list-safe-list', tags: ['Security'], summary: 'Every number and prefix of the account\'s Safe List',
      response: { 200: SafeListResponseSchema, ...errorResponses(401, 403) },
    },
  }, async (request, reply) => respond(reply, await listSafeList(ctx, request.principal), (list) => list));
};
export default register;
