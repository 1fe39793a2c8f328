import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updateTemplateText } from '../../../service/template-texts.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { TemplateTextParamsSchema, TemplateTextSchema, UpdateTemplateTextRequestSchema } from '../../schemas/api-v1.js';
import { toTemplateText } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/api/v1/applications/:appId/messages/:msgId/texts/:textId', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-message-text', tags: ['2FA message templates'], summary: 'Replace the text of a locale text (its locale and channel stay)',
      params: TemplateTextParamsSchema, body: UpdateTemplateTextRequestSchema,
      response: { 200: TemplateTextSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { appId, msgId, textId } = request.params;
    return respond(reply, await updateTemplateText(ctx, request.principal, appId, msgId, textId, request.body.text), toTemplateText);
  });
};
export default register;
