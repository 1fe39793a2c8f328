import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getAttempt } from '../../../service/twilio-attempts.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { toAttempt } from './presenters.js';
import { AttemptParams, AttemptSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Attempts/:Sid', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-fetch-verification-attempt', tags: ['Twilio Verify'], summary: 'Fetch a Verification Attempt',
      params: AttemptParams,
      response: { 200: AttemptSchema, ...twilioErrorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await getAttempt(ctx, request.principal, request.params.Sid), (a) => toAttempt(request, a, ctx.clock())));
};
export default register;
