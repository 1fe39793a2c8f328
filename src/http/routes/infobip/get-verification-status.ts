import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { getVerificationStatus } from '../../../service/verification-status.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema, VerificationResponseSchema, VerificationStatusQuerySchema } from '../../schemas/infobip.js';
import { toVerificationsResponse } from './presenters.js';

const asBoolean = (value: 'true' | 'false' | undefined) => (value === undefined ? undefined : value === 'true');

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/2fa/2/applications/:appId/verifications', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'get-2fa-verification-status', tags: ['2FA PINs'],
      summary: 'Verification status of the newest PINs (up to 100) sent to a destination; times in UNIX milliseconds',
      params: AppIdParamsSchema, querystring: VerificationStatusQuerySchema,
      response: { 200: VerificationResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { msisdn, verified, sent } = request.query;
    const query = { msisdn, ...(verified ? { verified: asBoolean(verified) } : {}), ...(sent ? { sent: asBoolean(sent) } : {}) };
    const result = await getVerificationStatus(ctx, request.principal, request.params.appId, query);
    return respond(reply, result, toVerificationsResponse);
  });
};
export default register;
