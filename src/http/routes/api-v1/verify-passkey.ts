import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { applicationPasskeyScope, verifyPasskeyFactor } from '../../../service/passkeys.js';
import { errorResponses, respond, sendFailure } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';
import { PasskeyCredentialBodySchema, PasskeyFactorSchema } from '../../schemas/passkeys.js';
import { toPasskeyFactor } from './passkey-presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/applications/:appId/passkeys/verify', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'verify-passkey', tags: ['Passkeys'],
      summary: 'Finish a passkey\'s registration with the credential navigator.credentials.create() made (the factor is the one whose challenge it answers)',
      params: AppIdParamsSchema, body: PasskeyCredentialBodySchema, response: { 200: PasskeyFactorSchema, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request, reply) => {
    const scope = await applicationPasskeyScope(ctx, request.principal, request.params.appId);
    if (!scope.ok) return sendFailure(reply, scope.failure);
    return respond(reply, await verifyPasskeyFactor(ctx, request.principal, scope.value, request.body), ({ factor, entity }) => toPasskeyFactor(factor, entity));
  });
};
export default register;
