import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { createEmailMessageTemplate } from '../../../service/message-templates.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema, CreateEmailMessageSchema, EmailMessageResponseSchema } from '../../schemas/infobip.js';
import { toEmailMessageResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/2fa/2/applications/:appId/email/messages', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'create-2fa-email-message-template', tags: ['2FA message templates'], summary: 'Create an email message template',
      params: AppIdParamsSchema, body: CreateEmailMessageSchema,
      response: { 200: EmailMessageResponseSchema, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request, reply) => respond(reply, await createEmailMessageTemplate(ctx, request.principal, request.params.appId, request.body), toEmailMessageResponse));
};
export default register;
