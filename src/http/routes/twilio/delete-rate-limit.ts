import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteRateLimit } from '../../../service/twilio-rate-limits.js';
import { sendFailure, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { RateLimitParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/Services/:ServiceSid/RateLimits/:Sid', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-delete-rate-limit', tags: ['Twilio Verify'], summary: 'Delete a Rate Limit with its Buckets',
      params: RateLimitParams,
      response: { 204: { type: 'null', description: 'Deleted.' }, ...twilioErrorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const result = await deleteRateLimit(ctx, request.principal, request.params.ServiceSid, request.params.Sid);
    if (!result.ok) return sendFailure(reply, result.failure);
    return reply.code(204).send(null);
  });
};
export default register;
