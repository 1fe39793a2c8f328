import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updateBucket } from '../../../service/twilio-rate-limits.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { toBucket } from './presenters.js';
import { BucketParams, BucketSchema, FORM, UpdateBucketBody } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/RateLimits/:RateLimitSid/Buckets/:Sid', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-update-bucket', tags: ['Twilio Verify'], summary: 'Update a Bucket: parameters left out keep their values',
      consumes: FORM, params: BucketParams, body: UpdateBucketBody,
      response: { 200: BucketSchema, ...twilioErrorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { ServiceSid, RateLimitSid, Sid } = request.params;
    const { Max, Interval } = request.body;
    const result = await updateBucket(ctx, request.principal, ServiceSid, RateLimitSid, Sid, {
      ...(Max !== undefined ? { max: Number(Max) } : {}), ...(Interval !== undefined ? { interval: Number(Interval) } : {}),
    });
    return respond(reply, result, (b) => toBucket(request, b));
  });
};
export default register;
