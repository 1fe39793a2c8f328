import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { removeSafeListNumber } from '../../../service/twilio-safe-list.js';
import { sendFailure, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { SafeListParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/SafeList/Numbers/:PhoneNumber', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-delete-safe-list-number', tags: ['Twilio Verify'], summary: 'Take a number off the Safe List',
      params: SafeListParams,
      response: { 204: { type: 'null', description: 'Removed.' }, ...twilioErrorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const result = await removeSafeListNumber(ctx, request.principal, request.params.PhoneNumber);
    if (!result.ok) return sendFailure(reply, result.failure);
    return reply.code(204).send(null);
  });
};
export default register;
