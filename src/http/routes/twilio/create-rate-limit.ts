import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { createRateLimit } from '../../../service/twilio-rate-limits.js';
import { sendFailure, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { toRateLimit } from './presenters.js';
import { CreateRateLimitBody, FORM, RateLimitSchema, ServiceSidParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/RateLimits', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-create-rate-limit', tags: ['Twilio Verify'], summary: 'Create a Rate Limit of a Service (its Buckets say how much)',
      consumes: FORM, params: ServiceSidParams, body: CreateRateLimitBody,
      response: { 201: RateLimitSchema, ...twilioErrorResponses(400, 401, 403, 404, 409) },
    },
  }, async (request, reply) => {
    const { UniqueName, Description } = request.body;
    const result = await createRateLimit(ctx, request.principal, request.params.ServiceSid, { uniqueName: UniqueName, ...(Description !== undefined ? { description: Description } : {}) });
    if (!result.ok) return sendFailure(reply, result.failure);
    return reply.code(201).send(toRateLimit(request, result.value));
  });
};
export default register;
