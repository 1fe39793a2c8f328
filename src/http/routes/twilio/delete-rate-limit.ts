import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteRateLimit } from '../../../service/twilio-rate-limits.js';
import { respondNoContent, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { RateLimitParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/Services/:ServiceSid/RateLimits/:Sid', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-delete-rate-limit', summary: 'Delete a Rate Limit with its Buckets',
    params: RateLimitParams,
    response: { 204: { type: 'null', description: 'Deleted.' }, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    return respondNoContent(reply, await deleteRateLimit(ctx, request.principal, request.params.ServiceSid, request.params.Sid));
  });
};
export default register;
