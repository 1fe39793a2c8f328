import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getMessageTemplate } from '../../../service/message-templates.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppMessageParamsSchema, MessageResponseSchema } from '../../schemas/infobip.js';
import { toMessageResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/2fa/2/applications/:appId/messages/:msgId', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-2fa-message-template', tags: ['2FA message templates'], summary: 'Get an SMS, voice or email message template',
      params: AppMessageParamsSchema,
      response: { 200: MessageResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await getMessageTemplate(ctx, request.principal, request.params.appId, request.params.msgId), toMessageResponse));
};
export default register;
