import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getBucket } from '../../../service/twilio-rate-limits.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toBucket } from './presenters.js';
import { BucketParams, BucketSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/RateLimits/:RateLimitSid/Buckets/:Sid', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-fetch-bucket', summary: 'Fetch a Bucket',
    params: BucketParams,
    response: { 200: BucketSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { ServiceSid, RateLimitSid, Sid } = request.params;
    return respond(reply, await getBucket(ctx, request.principal, ServiceSid, RateLimitSid, Sid), (b) => toBucket(request, b));
  });
};
export default register;
