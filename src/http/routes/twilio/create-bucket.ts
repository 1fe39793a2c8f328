import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { createBucket } from '../../../service/twilio-rate-limits.js';
import { respondCreated, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toBucket } from './presenters.js';
import { BucketSchema, BucketsParams, CreateBucketBody, FORM } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/RateLimits/:RateLimitSid/Buckets', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-create-bucket', summary: 'Create a Bucket: at most Max starts per value of the limit in Interval seconds',
    consumes: FORM, params: BucketsParams, body: CreateBucketBody,
    response: { 201: BucketSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { ServiceSid, RateLimitSid } = request.params;
    const result = await createBucket(ctx, request.principal, ServiceSid, RateLimitSid, { max: Number(request.body.Max), interval: Number(request.body.Interval) });
    return respondCreated(reply, result, (created) => toBucket(request, created));
  });
};
export default register;
