import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteEmailTemplate } from '../../../service/email-templates.js';
import { errorResponses, respondNoContent } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { EmailTemplateIdParamsSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/api/v1/email-templates/:id', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'delete-email-template', tags: ['Email templates'], summary: 'Delete an email template no 2FA email message uses',
      params: EmailTemplateIdParamsSchema,
      response: { 204: { type: 'null', description: 'Deleted; no body.' }, ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (request, reply) => {
    return respondNoContent(reply, await deleteEmailTemplate(ctx, request.principal, Number(request.params.id)));
  });
};
export default register;
