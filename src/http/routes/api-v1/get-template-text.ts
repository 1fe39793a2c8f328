import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getTemplateText } from '../../../service/template-texts.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { TemplateTextParamsSchema, TemplateTextSchema } from '../../schemas/api-v1.js';
import { toTemplateText } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/applications/:appId/messages/:msgId/texts/:textId', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-message-text', tags: ['2FA message templates'], summary: 'Read a locale text of a 2FA message',
      params: TemplateTextParamsSchema,
      response: { 200: TemplateTextSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { appId, msgId, textId } = request.params;
    return respond(reply, await getTemplateText(ctx, request.principal, appId, msgId, textId), toTemplateText);
  });
};
export default register;
