import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { preludeApplication } from '../../../service/prelude-settings.js';
import { errorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { PreludeSettingsSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/prelude/settings', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-prelude-settings', tags: ['Prelude Verify'], summary: 'The application the account\'s Prelude Verify calls use (null until set)',
      response: { 200: PreludeSettingsSchema, ...errorResponses(401, 403) },
    },
  }, async (request) => {
    const settings = await preludeApplication(ctx, request.principal);
    return settings.ok ? { applicationId: settings.value.application.id, customCodeAllowed: settings.value.customCodeAllowed } : { applicationId: null, customCodeAllowed: false };
  });
};
export default register;
