import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { deleteTemplateText } from '../../../service/template-texts.js';
import { errorResponses, respondNoContent } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { TemplateTextParamsSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/api/v1/applications/:appId/messages/:msgId/texts/:textId', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'delete-message-text', tags: ['2FA message templates'], summary: 'Delete a locale text (204): its locale falls back to the next text of the chain',
      params: TemplateTextParamsSchema,
      response: { 204: { type: 'null', description: 'Deleted.' }, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { appId, msgId, textId } = request.params;
    return respondNoContent(reply, await deleteTemplateText(ctx, request.principal, appId, msgId, textId));
  });
};
export default register;
