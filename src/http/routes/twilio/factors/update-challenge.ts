import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { updateTotpChallenge } from '../../../../service/totp-factors.js';
import { respond, twilioErrorResponses } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { twilioRoute } from '../route-options.js';
import { FORM } from '../schemas.js';
import { toChallenge } from './presenters.js';
import { ChallengeParams, ChallengeSchema, UpdateChallengeBody } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Entities/:Identity/Challenges/:Sid', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-update-challenge', summary: 'Answer a totp Challenge with a code: approved, or pending when wrong; the fifth wrong code denies it (429 60308 afterwards)',
    consumes: FORM, params: ChallengeParams, body: UpdateChallengeBody,
    response: { 200: ChallengeSchema, ...twilioErrorResponses(400, 401, 403, 404, 429) },
  }), async (request, reply) => {
    const { ServiceSid, Identity, Sid } = request.params;
    const { AuthPayload, Metadata } = request.body;
    const result = await updateTotpChallenge(ctx, request.principal, ServiceSid, Identity, Sid, {
      authPayload: AuthPayload, ...(Metadata !== undefined ? { metadata: Metadata } : {}),
    });
    return respond(reply, result, (answer) => toChallenge(request, answer));
  });
};
export default register;
