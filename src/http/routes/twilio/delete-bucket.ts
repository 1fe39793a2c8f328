import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteBucket } from '../../../service/twilio-rate-limits.js';
import { sendFailure, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { BucketParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/Services/:ServiceSid/RateLimits/:RateLimitSid/Buckets/:Sid', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-delete-bucket', tags: ['Twilio Verify'], summary: 'Delete a Bucket',
      params: BucketParams,
      response: { 204: { type: 'null', description: 'Deleted.' }, ...twilioErrorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { ServiceSid, RateLimitSid, Sid } = request.params;
    const result = await deleteBucket(ctx, request.principal, ServiceSid, RateLimitSid, Sid);
    if (!result.ok) return sendFailure(reply, result.failure);
    return reply.code(204).send(null);
  });
};
export default register;
