import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { createPasskeyChallenge, twilioPasskeyScope } from '../../../service/passkeys.js';
import { definedFields } from '../../request-fields.js';
import { respondCreated, sendFailure, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { toPasskeysChallenge } from './passkeys-presenters.js';
import { CreatePasskeysChallengeBody, PasskeysChallengeSchema } from './passkeys-schemas.js';
import { twilioRoute } from './route-options.js';
import { ServiceSidParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Passkeys/Challenges', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-create-passkeys-challenge', summary: 'Create a passkeys challenge (of a factor, of an Entity\'s passkeys, or of any discoverable one): the WebAuthn request options',
    consumes: ['application/json'], params: ServiceSidParams, body: CreatePasskeysChallengeBody,
    response: { 201: PasskeysChallengeSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const scope = await twilioPasskeyScope(ctx, request.principal, request.params.ServiceSid);
    if (!scope.ok) return sendFailure(reply, scope.failure);
    const { body } = request;
    const result = await createPasskeyChallenge(ctx, request.principal, scope.value, definedFields({ identity: body.identity, factorSid: body.factor_sid ?? body.factorSid }));
    return respondCreated(reply, result, (made) => toPasskeysChallenge(request, made.challenge, made.entity, 'Challenges', ctx.clock(), made.options));
  });
};
export default register;
