import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getEmailTemplate } from '../../../service/email-templates.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { EmailTemplateIdParamsSchema, EmailTemplateResponseSchema } from '../../schemas/api-v1.js';
import { toEmailTemplateResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/email-templates/:id', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-email-template', tags: ['Email templates'], summary: 'Get an email template',
      params: EmailTemplateIdParamsSchema,
      response: { 200: EmailTemplateResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await getEmailTemplate(ctx, request.principal, Number(request.params.id)), toEmailTemplateResponse));
};
export default register;
