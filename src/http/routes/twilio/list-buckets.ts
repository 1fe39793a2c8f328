import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listBuckets } from '../../../service/twilio-rate-limits.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { listPage, toBucket } from './presenters.js';
import { BucketPageSchema, BucketsParams, PageQuery } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/RateLimits/:RateLimitSid/Buckets', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-list-buckets', summary: 'List the Buckets of a Rate Limit, oldest first, in pages',
    params: BucketsParams, querystring: PageQuery,
    response: { 200: BucketPageSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { ServiceSid, RateLimitSid } = request.params;
    return respond(reply, await listBuckets(ctx, request.principal, ServiceSid, RateLimitSid), (all) => listPage(request, `/Services/${ServiceSid}/RateLimits/${RateLimitSid}/Buckets`, 'buckets', all, (b) => toBucket(request, b)));
  });
};
export default register;
