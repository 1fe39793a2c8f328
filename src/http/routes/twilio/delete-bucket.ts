import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteBucket } from '../../../service/twilio-rate-limits.js';
import { respondNoContent, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { BucketParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/Services/:ServiceSid/RateLimits/:RateLimitSid/Buckets/:Sid', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-delete-bucket', summary: 'Delete a Bucket',
    params: BucketParams,
    response: { 204: { type: 'null', description: 'Deleted.' }, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { ServiceSid, RateLimitSid, Sid } = request.params;
    return respondNoContent(reply, await deleteBucket(ctx, request.principal, ServiceSid, RateLimitSid, Sid));
  });
};
export default register;
