import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updateSecurity } from '../../../service/security.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { SecurityResponseSchema, SecuritySettingsRequestSchema } from '../../schemas/api-v1.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/api/v1/applications/:appId/security', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-application-security', tags: ['Security'],
      summary: 'Change an application\'s anti-fraud settings (fields left out keep their values)',
      params: AppIdParamsSchema, body: SecuritySettingsRequestSchema,
      response: { 200: SecurityResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    // JSON nulls are dropped before validation (Infobip's convention), so "" is how a limit is removed.
    const { perIpSendLimit, perPrefixSendLimit, ...rest } = request.body;
    const patch = {
      ...rest,
      ...(perIpSendLimit !== undefined ? { perIpSendLimit: perIpSendLimit === '' ? null : perIpSendLimit } : {}),
      ...(perPrefixSendLimit !== undefined ? { perPrefixSendLimit: perPrefixSendLimit === '' ? null : perPrefixSendLimit } : {}),
    };
    return respond(reply, await updateSecurity(ctx, request.principal, request.params.appId, patch), (view) => view);
  });
};
export default register;
