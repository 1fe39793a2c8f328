import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { setTemplateAutofill } from '../../../service/template-autofill.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AutofillRequestSchema, AutofillResponseSchema } from '../../schemas/api-v1.js';
import { AppMessageParamsSchema } from '../../schemas/infobip.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/api/v1/applications/:appId/messages/:msgId/autofill', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-message-autofill', tags: ['2FA message templates'],
      summary: 'Set the SMS autofill lines of a 2FA message (a field left out is turned off; `{}` turns autofill off)',
      params: AppMessageParamsSchema, body: AutofillRequestSchema,
      response: { 200: AutofillResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await setTemplateAutofill(ctx, request.principal, request.params.appId, request.params.msgId, request.body), (autofill) => autofill));
};
export default register;
