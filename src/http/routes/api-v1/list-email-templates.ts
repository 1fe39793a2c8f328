import { Type } from 'typebox';
import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listEmailTemplates } from '../../../service/email-templates.js';
import { errorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { EmailTemplateResponseSchema } from '../../schemas/api-v1.js';
import { toEmailTemplateResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/email-templates', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'list-email-templates', tags: ['Email templates'], summary: 'List email templates',
      response: { 200: Type.Array(EmailTemplateResponseSchema, { description: 'The account\'s email templates.' }), ...errorResponses(401, 403) },
    },
  }, async (request) => (await listEmailTemplates(ctx, request.principal)).map(toEmailTemplateResponse));
};
export default register;
