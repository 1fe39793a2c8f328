import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { summarizeAttempts } from '../../../service/twilio-attempts.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import { definedFields } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toAttemptsSummary } from './presenters.js';
import { AttemptSummaryQuery, AttemptSummarySchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Attempts/Summary', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-fetch-verification-attempts-summary',
    summary: 'Count the account\'s attempts and conversions, with conversion_rate_percentage',
    querystring: AttemptSummaryQuery,
    response: { 200: AttemptSummarySchema, ...twilioErrorResponses(400, 401, 403) },
  }), async (request, reply) => {
    const q = request.query;
    const result = await summarizeAttempts(ctx, request.principal, definedFields({
      dateCreatedAfter: q.DateCreatedAfter, dateCreatedBefore: q.DateCreatedBefore, country: q.Country, channel: q.Channel,
      verifyServiceSid: q.VerifyServiceSid, destinationPrefix: q.DestinationPrefix,
    }));
    return respond(reply, result, (summary) => toAttemptsSummary(request, summary));
  });
};
export default register;
