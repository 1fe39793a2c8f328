import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { createTotpChallenge } from '../../../../service/totp-factors.js';
import { respondCreated, twilioErrorResponses } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { twilioRoute } from '../route-options.js';
import { FORM } from '../schemas.js';
import { toChallenge } from './presenters.js';
import { ChallengeSchema, CreateChallengeBody, EntityParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Entities/:Identity/Challenges', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-create-challenge', summary: 'Challenge a verified totp Factor; with AuthPayload the code is answered at once (approved, or pending when wrong)',
    consumes: FORM, params: EntityParams, body: CreateChallengeBody,
    response: { 201: ChallengeSchema, ...twilioErrorResponses(400, 401, 403, 404, 429) },
  }), async (request, reply) => {
    const body = request.body;
    const fields = body['Details.Fields'];
    const result = await createTotpChallenge(ctx, request.principal, request.params.ServiceSid, request.params.Identity, {
      factorSid: body.FactorSid,
      ...(body.ExpirationDate !== undefined ? { expirationDate: body.ExpirationDate } : {}),
      ...(body['Details.Message'] !== undefined ? { detailsMessage: body['Details.Message'] } : {}),
      ...(fields !== undefined ? { detailsFields: ([] as string[]).concat(fields) } : {}),
      ...(body.HiddenDetails !== undefined ? { hiddenDetails: body.HiddenDetails } : {}),
      ...(body.AuthPayload !== undefined ? { authPayload: body.AuthPayload } : {}),
    });
    return respondCreated(reply, result, (answer) => toChallenge(request, answer));
  });
};
export default register;
