import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { summarizeAttempts } from '../../../service/twilio-attempts.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { toAttemptsSummary } from './presenters.js';
import { AttemptSummaryQuery, AttemptSummarySchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Attempts/Summary', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-fetch-verification-attempts-summary', tags: ['Twilio Verify'],
      summary: 'Count the account\'s attempts and conversions, with conversion_rate_percentage',
      querystring: AttemptSummaryQuery,
      response: { 200: AttemptSummarySchema, ...twilioErrorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const q = request.query;
    const result = await summarizeAttempts(ctx, request.principal, {
      ...(q.DateCreatedAfter !== undefined ? { dateCreatedAfter: q.DateCreatedAfter } : {}), ...(q.DateCreatedBefore !== undefined ? { dateCreatedBefore: q.DateCreatedBefore } : {}),
      ...(q.Country !== undefined ? { country: q.Country } : {}), ...(q.Channel !== undefined ? { channel: q.Channel } : {}),
      ...(q.VerifyServiceSid !== undefined ? { verifyServiceSid: q.VerifyServiceSid } : {}), ...(q.DestinationPrefix !== undefined ? { destinationPrefix: q.DestinationPrefix } : {}),
    });
    return respond(reply, result, (summary) => toAttemptsSummary(request, summary));
  });
};
export default register;
