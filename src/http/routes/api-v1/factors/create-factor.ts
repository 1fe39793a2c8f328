import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { createTotpFactor } from '../../../../service/totp-factors.js';
import { errorResponses, respond } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { CreateFactorRequestSchema, EntityParamsSchema, NewFactorSchema } from '../../../schemas/api-v1-factors.js';
import { inApplication, serviceOf, toFactor } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/applications/:appId/entities/:identity/factors', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'create-factor', tags: ['Factors'],
      summary: 'Make a TOTP factor for a user (and the user\'s entity if new); its seed and otpauth:// URI are answered here only',
      params: EntityParamsSchema, body: CreateFactorRequestSchema,
      response: { 200: NewFactorSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { appId, identity } = request.params;
    const { friendlyName, config = {}, secret } = request.body;
    const result = await createTotpFactor(ctx, request.principal, serviceOf(appId), identity, { friendlyName, config, ...(secret !== undefined ? { secret } : {}) });
    return respond(reply, inApplication(appId, result), (made) => ({ ...toFactor(made), secret: made.binding.secret, uri: made.binding.uri }));
  });
};
export default register;
