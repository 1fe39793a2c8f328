import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updateEmailTemplate } from '../../../service/email-templates.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { EmailTemplateIdParamsSchema, EmailTemplateRequestSchema, EmailTemplateResponseSchema } from '../../schemas/api-v1.js';
import { toEmailTemplateResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/api/v1/email-templates/:id', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-email-template', tags: ['Email templates'], summary: 'Replace an email template',
      params: EmailTemplateIdParamsSchema, body: EmailTemplateRequestSchema,
      response: { 200: EmailTemplateResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await updateEmailTemplate(ctx, request.principal, Number(request.params.id), request.body), toEmailTemplateResponse));
};
export default register;
