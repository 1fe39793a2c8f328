import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { addSafeListEntry } from '../../../service/twilio-safe-list.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { SafeListEntrySchema, SafeListRequestSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/safe-list', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'add-safe-list-entry', tags: ['Security'],
      summary: 'Put a number, or a prefix, on the account\'s Safe List (its numbers are Twilio\'s /v2/SafeList/Numbers): never blocked by the guards or the risk score, never counted in the score\'s baselines',
      body: SafeListRequestSchema,
      response: { 200: SafeListEntrySchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => respond(reply, await addSafeListEntry(ctx, request.principal, request.body), (entry) => entry));
};
export default register;
