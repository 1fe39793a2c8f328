import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { createPasskeyFactor, twilioPasskeyScope } from '../../../service/passkeys.js';
import { respondCreated, sendFailure, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { toNewFactor } from './factors/presenters.js';
import { CreatePasskeysFactorBody, passkeyConfigPatch } from './passkeys-schemas.js';
import { NewFactorSchema } from './factors/schemas.js';
import { twilioRoute } from './route-options.js';
import { ServiceSidParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Passkeys/Factors', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-create-passkeys-factor', summary: 'Create a passkeys factor (its Entity too when new): the WebAuthn creation options of its registration',
    consumes: ['application/json'], params: ServiceSidParams, body: CreatePasskeysFactorBody,
    response: { 201: NewFactorSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const scope = await twilioPasskeyScope(ctx, request.principal, request.params.ServiceSid);
    if (!scope.ok) return sendFailure(reply, scope.failure);
    const { body } = request;
    const result = await createPasskeyFactor(ctx, request.principal, scope.value, {
      identity: body.identity, friendlyName: body.friendly_name ?? body.friendlyName ?? '',
      ...(body.config !== undefined ? { config: passkeyConfigPatch(body.config) } : {}),
    });
    return respondCreated(reply, result, (made) => toNewFactor(request, { service: scope.value.service, ...made }, null, made.options));
  });
};
export default register;
