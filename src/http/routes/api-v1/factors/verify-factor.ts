import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { updateTotpFactor } from '../../../../service/totp-factors.js';
import { errorResponses, respond } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { CodeRequestSchema, FactorParamsSchema, FactorSchema } from '../../../schemas/api-v1-factors.js';
import { inApplication, serviceOf, toFactor } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/applications/:appId/entities/:identity/factors/:factorSid/verification', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'verify-factor', tags: ['Factors'],
      summary: 'Verify a TOTP factor with the first code its app shows: status verified, or still unverified when wrong (429 after five wrong codes)',
      params: FactorParamsSchema, body: CodeRequestSchema,
      response: { 200: FactorSchema, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request, reply) => {
    const { appId, identity, factorSid } = request.params;
    const result = await updateTotpFactor(ctx, request.principal, serviceOf(appId), identity, factorSid, { authPayload: request.body.code, config: {} });
    return respond(reply, inApplication(appId, result), toFactor);
  });
};
export default register;
