import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listTemplateTexts } from '../../../service/template-texts.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { TemplateTextListSchema } from '../../schemas/api-v1.js';
import { AppMessageParamsSchema } from '../../schemas/infobip.js';
import { toTemplateText } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/applications/:appId/messages/:msgId/texts', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'list-message-texts', tags: ['2FA message templates'], summary: 'List the locale texts of an SMS/voice 2FA message (Vonage: its fragments)',
      params: AppMessageParamsSchema,
      response: { 200: TemplateTextListSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await listTemplateTexts(ctx, request.principal, request.params.appId, request.params.msgId), (texts) => ({ texts: texts.map(toTemplateText) })));
};
export default register;
