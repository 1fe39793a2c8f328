import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { createRateLimit } from '../../../service/twilio-rate-limits.js';
import { respondCreated, twilioErrorResponses } from '../../error-envelope.js';
import { definedFields } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toRateLimit } from './presenters.js';
import { CreateRateLimitBody, FORM, RateLimitSchema, ServiceSidParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/RateLimits', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-create-rate-limit', summary: 'Create a Rate Limit of a Service (its Buckets say how much)',
    consumes: FORM, params: ServiceSidParams, body: CreateRateLimitBody,
    response: { 201: RateLimitSchema, ...twilioErrorResponses(400, 401, 403, 404, 409) },
  }), async (request, reply) => {
    const { UniqueName, Description } = request.body;
    const result = await createRateLimit(ctx, request.principal, request.params.ServiceSid, { uniqueName: UniqueName, ...definedFields({ description: Description }) });
    return respondCreated(reply, result, (created) => toRateLimit(request, created));
  });
};
export default register;
