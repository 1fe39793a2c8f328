import type { Static } from 'typebox';
import type { PasskeyConfigPatch } from '../../../domain/passkeys.js';
import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { applicationPasskeyScope, createPasskeyFactor } from '../../../service/passkeys.js';
import { errorResponses, respondCreated, sendFailure } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';
import { NewPasskeyBodySchema, PasskeyFactorSchema, PasskeySettingsBodySchema } from '../../schemas/passkeys.js';
import { toPasskeyFactor } from './passkey-presenters.js';

/** This API's camelCase settings as the use cases read them (Twilio's snake_case); only the fields given. */
export function passkeyPatchOf(body: Static<typeof PasskeySettingsBodySchema>): PasskeyConfigPatch {
  return {
    ...(body.relyingParty !== undefined ? { relying_party: body.relyingParty } : {}),
    ...(body.authenticatorAttachment !== undefined ? { authenticator_attachment: body.authenticatorAttachment } : {}),
    ...(body.discoverableCredentials !== undefined ? { discoverable_credentials: body.discoverableCredentials } : {}),
    ...(body.userVerification !== undefined ? { user_verification: body.userVerification } : {}),
  };
}

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/applications/:appId/passkeys', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'create-passkey', tags: ['Passkeys'],
      summary: 'Start a passkey\'s registration for a user: an unverified factor and the options for navigator.credentials.create()',
      params: AppIdParamsSchema, body: NewPasskeyBodySchema, response: { 201: PasskeyFactorSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const scope = await applicationPasskeyScope(ctx, request.principal, request.params.appId);
    if (!scope.ok) return sendFailure(reply, scope.failure);
    const { identity, friendlyName, config } = request.body;
    const result = await createPasskeyFactor(ctx, request.principal, scope.value, { identity, friendlyName, ...(config !== undefined ? { config: passkeyPatchOf(config) } : {}) });
    return respondCreated(reply, result, (made) => toPasskeyFactor(made.factor, made.entity, made.options));
  });
};
export default register;
