import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updatePreludeSettings } from '../../../service/prelude-settings.js';
import { errorResponses, respond } from '../../error-envelope.js';
import { definedFields } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { PreludeSettingsBodySchema, PreludeSettingsSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/api/v1/prelude/settings', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-prelude-settings', tags: ['Prelude Verify'],
      summary: 'Set the application the account\'s Prelude Verify calls use, and whether they may choose their code',
      body: PreludeSettingsBodySchema,
      response: { 200: PreludeSettingsSchema, ...errorResponses(400, 401, 403, 413, 415) },
    },
  }, async (request, reply) => {
    const { applicationId, customCodeAllowed } = request.body;
    const result = await updatePreludeSettings(ctx, request.principal, { applicationId, ...definedFields({ customCodeAllowed }) });
    return respond(reply, result, (settings) => ({ applicationId: settings.application.id, customCodeAllowed: settings.customCodeAllowed }));
  });
};
export default register;
