import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listRateLimits } from '../../../service/twilio-rate-limits.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { listPage, toRateLimit } from './presenters.js';
import { PageQuery, RateLimitPageSchema, ServiceSidParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/RateLimits', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-list-rate-limits', summary: 'List the Rate Limits of a Service, oldest first, in pages',
    params: ServiceSidParams, querystring: PageQuery,
    response: { 200: RateLimitPageSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => respond(reply, await listRateLimits(ctx, request.principal, request.params.ServiceSid), (all) => (
    listPage(request, `/Services/${request.params.ServiceSid}/RateLimits`, 'rate_limits', all, (r) => toRateLimit(request, r))
  )));
};
export default register;
