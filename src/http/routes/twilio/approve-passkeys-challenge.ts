import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { approvePasskeyChallenge, twilioPasskeyScope } from '../../../service/passkeys.js';
import { respond, sendFailure, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { toPasskeysChallenge } from './passkeys-presenters.js';
import { ApprovePasskeysChallengeBody, PasskeysChallengeSchema } from './passkeys-schemas.js';
import { twilioRoute } from './route-options.js';
import { ServiceSidParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Passkeys/ApproveChallenge', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-approve-passkeys-challenge', summary: 'Approve a passkeys challenge with the assertion of navigator.credentials.get() (the challenge is the one it answers)',
    consumes: ['application/json'], params: ServiceSidParams, body: ApprovePasskeysChallengeBody,
    response: { 200: PasskeysChallengeSchema, ...twilioErrorResponses(400, 401, 403, 404, 429) },
  }), async (request, reply) => {
    const scope = await twilioPasskeyScope(ctx, request.principal, request.params.ServiceSid);
    if (!scope.ok) return sendFailure(reply, scope.failure);
    const result = await approvePasskeyChallenge(ctx, request.principal, scope.value, request.body);
    return respond(reply, result, ({ challenge, entity }) => toPasskeysChallenge(request, challenge, entity, 'ApproveChallenge', ctx.clock()));
  });
};
export default register;
