import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getAttempt } from '../../../service/twilio-attempts.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toAttempt } from './presenters.js';
import { AttemptParams, AttemptSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Attempts/:Sid', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-fetch-verification-attempt', summary: 'Fetch a Verification Attempt',
    params: AttemptParams,
    response: { 200: AttemptSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => respond(reply, await getAttempt(ctx, request.principal, request.params.Sid), (a) => toAttempt(request, a, ctx.clock())));
};
export default register;
