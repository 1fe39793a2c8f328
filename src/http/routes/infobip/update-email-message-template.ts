import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updateEmailMessageTemplate } from '../../../service/message-templates.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppMessageParamsSchema, EmailMessageResponseSchema, UpdateEmailMessageSchema } from '../../schemas/infobip.js';
import { toEmailMessageResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/2fa/2/applications/:appId/email/messages/:msgId', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-2fa-email-message-template', tags: ['2FA message templates'], summary: 'Update an email message template (fields left out keep their value)',
      params: AppMessageParamsSchema, body: UpdateEmailMessageSchema,
      response: { 200: EmailMessageResponseSchema, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request, reply) => respond(reply, await updateEmailMessageTemplate(ctx, request.principal, request.params.appId, request.params.msgId, request.body), toEmailMessageResponse));
};
export default register;
