import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updateRateLimit } from '../../../service/twilio-rate-limits.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import { definedFields } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toRateLimit } from './presenters.js';
import { FORM, RateLimitParams, RateLimitSchema, UpdateRateLimitBody } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/RateLimits/:Sid', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-update-rate-limit', summary: 'Update a Rate Limit\'s description (its name is fixed)',
    consumes: FORM, params: RateLimitParams, body: UpdateRateLimitBody,
    response: { 200: RateLimitSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { Description } = request.body;
    const result = await updateRateLimit(ctx, request.principal, request.params.ServiceSid, request.params.Sid, definedFields({ description: Description }));
    return respond(reply, result, (r) => toRateLimit(request, r));
  });
};
export default register;
