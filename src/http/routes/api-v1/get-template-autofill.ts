import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getTemplateAutofill } from '../../../service/template-autofill.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AutofillResponseSchema } from '../../schemas/api-v1.js';
import { AppMessageParamsSchema } from '../../schemas/infobip.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/applications/:appId/messages/:msgId/autofill', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-message-autofill', tags: ['2FA message templates'], summary: 'The SMS autofill lines of a 2FA message (WebOTP / iOS domain, Android app hash)',
      params: AppMessageParamsSchema,
      response: { 200: AutofillResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await getTemplateAutofill(ctx, request.principal, request.params.appId, request.params.msgId), (autofill) => autofill));
};
export default register;
