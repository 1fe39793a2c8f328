import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updateRiskSettings } from '../../../service/risk.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { RiskSettingsRequestSchema, RiskSettingsResponseSchema } from '../../schemas/api-v1.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/api/v1/applications/:appId/risk', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-application-risk', tags: ['Security'],
      summary: 'Change an application\'s risk mode and thresholds (fields left out keep their values)',
      params: AppIdParamsSchema, body: RiskSettingsRequestSchema,
      response: { 200: RiskSettingsResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await updateRiskSettings(ctx, request.principal, request.params.appId, request.body ?? {}), (view) => view));
};
export default register;
