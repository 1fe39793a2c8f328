import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getRateLimit } from '../../../service/twilio-rate-limits.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toRateLimit } from './presenters.js';
import { RateLimitParams, RateLimitSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/RateLimits/:Sid', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-fetch-rate-limit', summary: 'Fetch a Rate Limit',
    params: RateLimitParams,
    response: { 200: RateLimitSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => respond(reply, await getRateLimit(ctx, request.principal, request.params.ServiceSid, request.params.Sid), (r) => toRateLimit(request, r)));
};
export default register;
