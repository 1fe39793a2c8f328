import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listAttempts } from '../../../service/twilio-attempts.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import { definedFields } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { pageMeta, pageOf, toAttempt } from './presenters.js';
import { AttemptListQuery, AttemptPageSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Attempts', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-list-verification-attempts', summary: 'List the account\'s Verification Attempts (each send), newest first, in pages',
    querystring: AttemptListQuery,
    response: { 200: AttemptPageSchema, ...twilioErrorResponses(400, 401, 403) },
  }), async (request, reply) => {
    const q = request.query;
    const page = pageOf(q);
    const result = await listAttempts(ctx, request.principal, definedFields({
      dateCreatedAfter: q.DateCreatedAfter, dateCreatedBefore: q.DateCreatedBefore, to: q['ChannelData.To'], country: q.Country,
      channel: q.Channel, verifyServiceSid: q.VerifyServiceSid, verificationSid: q.VerificationSid, status: q.Status,
    }), page);
    const now = ctx.clock();
    return respond(reply, result, ({ attempts, hasNext }) => ({
      attempts: attempts.map((a) => toAttempt(request, a, now)), meta: pageMeta(request, '/Attempts', 'attempts', page.index, page.size, hasNext),
    }));
  });
};
export default register;
