import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { createEmailTemplate } from '../../../service/email-templates.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { EmailTemplateRequestSchema, EmailTemplateResponseSchema } from '../../schemas/api-v1.js';
import { toEmailTemplateResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/email-templates', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'create-email-template', tags: ['Email templates'], summary: 'Create an email template for 2FA email messages',
      body: EmailTemplateRequestSchema,
      response: { 200: EmailTemplateResponseSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => respond(reply, await createEmailTemplate(ctx, request.principal, request.body), toEmailTemplateResponse));
};
export default register;
