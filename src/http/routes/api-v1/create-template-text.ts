import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { addTemplateText } from '../../../service/template-texts.js';
import { errorResponses, respondCreated } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { CreateTemplateTextRequestSchema, TemplateTextSchema } from '../../schemas/api-v1.js';
import { AppMessageParamsSchema } from '../../schemas/infobip.js';
import { toTemplateText } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/applications/:appId/messages/:msgId/texts', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'create-message-text', tags: ['2FA message templates'],
      summary: 'Add a locale text to an SMS/voice 2FA message (201); 409 when the locale and channel have one',
      params: AppMessageParamsSchema, body: CreateTemplateTextRequestSchema,
      response: { 201: TemplateTextSchema, ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (request, reply) => respondCreated(reply, await addTemplateText(ctx, request.principal, request.params.appId, request.params.msgId, request.body), toTemplateText));
};
export default register;
