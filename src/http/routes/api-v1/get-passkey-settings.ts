import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getService } from '../../../service/twilio-services.js';
import { serviceSid } from '../../../domain/twilio-sids.js';
import { fail } from '../../../domain/errors.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';
import { PasskeySettingsSchema } from '../../schemas/passkeys.js';
import { toPasskeySettings } from './passkey-presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/applications/:appId/passkeys/settings', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-passkey-settings', tags: ['Passkeys'], summary: 'The relying party an application\'s passkeys are made for',
      params: AppIdParamsSchema, response: { 200: PasskeySettingsSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { appId: applicationId } = request.params;
    const service = await getService(ctx, request.principal, serviceSid(applicationId));
    return respond(reply, service.ok ? service : fail('APPLICATION_NOT_FOUND', `Application ${applicationId} not found`), toPasskeySettings);
  });
};
export default register;
