import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { twilioPasskeyScope, verifyPasskeyFactor } from '../../../service/passkeys.js';
import { respond, sendFailure, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { toFactor } from './factors/presenters.js';
import { VerifyPasskeysFactorBody } from './passkeys-schemas.js';
import { FactorSchema } from './factors/schemas.js';
import { twilioRoute } from './route-options.js';
import { ServiceSidParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Passkeys/VerifyFactor', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-verify-passkeys-factor', summary: 'Verify a passkeys factor with the attestation of navigator.credentials.create() (the factor is the one whose challenge it answers)',
    consumes: ['application/json'], params: ServiceSidParams, body: VerifyPasskeysFactorBody,
    response: { 200: FactorSchema, ...twilioErrorResponses(400, 401, 403, 404, 429) },
  }), async (request, reply) => {
    const scope = await twilioPasskeyScope(ctx, request.principal, request.params.ServiceSid);
    if (!scope.ok) return sendFailure(reply, scope.failure);
    const result = await verifyPasskeyFactor(ctx, request.principal, scope.value, request.body);
    return respond(reply, result, (verified) => toFactor(request, { service: scope.value.service, ...verified }));
  });
};
export default register;
