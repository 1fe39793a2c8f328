import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updatePasskeySettings } from '../../../service/twilio-services.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';
import { PasskeySettingsBodySchema, PasskeySettingsSchema } from '../../schemas/passkeys.js';
import { toPasskeySettings } from './passkey-presenters.js';
import { passkeyPatchOf } from './create-passkey.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/api/v1/applications/:appId/passkeys/settings', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-passkey-settings', tags: ['Passkeys'],
      summary: 'Set the relying party of an application\'s passkeys (its Twilio Service\'s Passkeys.*): id, name, origins, authenticator criteria',
      params: AppIdParamsSchema, body: PasskeySettingsBodySchema, response: { 200: PasskeySettingsSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const result = await updatePasskeySettings(ctx, request.principal, request.params.appId, passkeyPatchOf(request.body));
    return respond(reply, result, toPasskeySettings);
  });
};
export default register;
