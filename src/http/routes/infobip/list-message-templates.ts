import { Type } from 'typebox';
import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listMessageTemplates } from '../../../service/message-templates.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema, MessageResponseSchema } from '../../schemas/infobip.js';
import { toMessageResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/2fa/2/applications/:appId/messages', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-2fa-message-templates', tags: ['2FA message templates'], summary: 'List the SMS, voice and email message templates of an application',
      params: AppIdParamsSchema,
      response: { 200: Type.Array(MessageResponseSchema, { description: 'The application\'s SMS/voice and email message templates.' }), ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await listMessageTemplates(ctx, request.principal, request.params.appId), (list) => list.map(toMessageResponse)));
};
export default register;
