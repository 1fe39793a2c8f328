import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listAttempts } from '../../../service/twilio-attempts.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { pageMeta, pageOf, toAttempt } from './presenters.js';
import { AttemptListQuery, AttemptPageSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Attempts', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-list-verification-attempts', tags: ['Twilio Verify'], summary: 'List the account\'s Verification Attempts (each send), newest first, in pages',
      querystring: AttemptListQuery,
      response: { 200: AttemptPageSchema, ...twilioErrorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const q = request.query;
    const page = pageOf(q);
    const result = await listAttempts(ctx, request.principal, {
      ...(q.DateCreatedAfter !== undefined ? { dateCreatedAfter: q.DateCreatedAfter } : {}), ...(q.DateCreatedBefore !== undefined ? { dateCreatedBefore: q.DateCreatedBefore } : {}),
      ...(q['ChannelData.To'] !== undefined ? { to: q['ChannelData.To'] } : {}), ...(q.Country !== undefined ? { country: q.Country } : {}),
      ...(q.Channel !== undefined ? { channel: q.Channel } : {}), ...(q.VerifyServiceSid !== undefined ? { verifyServiceSid: q.VerifyServiceSid } : {}),
      ...(q.VerificationSid !== undefined ? { verificationSid: q.VerificationSid } : {}), ...(q.Status !== undefined ? { status: q.Status } : {}),
    }, page);
    const now = ctx.clock();
    return respond(reply, result, ({ attempts, hasNext }) => ({
      attempts: attempts.map((a) => toAttempt(request, a, now)), meta: pageMeta(request, '/Attempts', 'attempts', page.index, page.size, hasNext),
    }));
  });
};
export default register;
