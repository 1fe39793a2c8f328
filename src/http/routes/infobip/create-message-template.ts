import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { createSmsVoiceTemplate } from '../../../service/message-templates.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema, CreateSmsVoiceMessageSchema, SmsVoiceMessageResponseSchema } from '../../schemas/infobip.js';
import { toSmsVoiceMessageResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/2fa/2/applications/:appId/messages', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'create-2fa-message-template', tags: ['2FA message templates'], summary: 'Create an SMS/voice message template',
      params: AppIdParamsSchema, body: CreateSmsVoiceMessageSchema,
      response: { 200: SmsVoiceMessageResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await createSmsVoiceTemplate(ctx, request.principal, request.params.appId, request.body), toSmsVoiceMessageResponse));
};
export default register;
