import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getRiskSettings } from '../../../service/risk.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { RiskSettingsResponseSchema } from '../../schemas/api-v1.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/applications/:appId/risk', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-application-risk', tags: ['Security'],
      summary: 'An application\'s risk mode (enforce, shadow, off) and block thresholds',
      params: AppIdParamsSchema,
      response: { 200: RiskSettingsResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await getRiskSettings(ctx, request.principal, request.params.appId), (view) => view));
};
export default register;
