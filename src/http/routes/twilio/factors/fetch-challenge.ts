import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { findChallenge } from '../../../../service/factors.js';
import { respond, twilioErrorResponses } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { twilioRoute } from '../route-options.js';
import { toChallenge } from './presenters.js';
import { ChallengeParams, ChallengeSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/Entities/:Identity/Challenges/:Sid', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-fetch-challenge', summary: 'Fetch a Challenge and its status (pending, expired, approved, denied)',
    params: ChallengeParams,
    response: { 200: ChallengeSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { ServiceSid, Identity, Sid } = request.params;
    return respond(reply, await findChallenge(ctx, request.principal, ServiceSid, Identity, Sid), (found) => toChallenge(request, found));
  });
};
export default register;
