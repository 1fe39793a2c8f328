import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updateBucket } from '../../../service/twilio-rate-limits.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import { definedFields, numberOrUndefined } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toBucket } from './presenters.js';
import { BucketParams, BucketSchema, FORM, UpdateBucketBody } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/RateLimits/:RateLimitSid/Buckets/:Sid', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-update-bucket', summary: 'Update a Bucket: parameters left out keep their values',
    consumes: FORM, params: BucketParams, body: UpdateBucketBody,
    response: { 200: BucketSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { ServiceSid, RateLimitSid, Sid } = request.params;
    const { Max, Interval } = request.body;
    const result = await updateBucket(ctx, request.principal, ServiceSid, RateLimitSid, Sid, definedFields({ max: numberOrUndefined(Max), interval: numberOrUndefined(Interval) }));
    return respond(reply, result, (b) => toBucket(request, b));
  });
};
export default register;
