import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updateSmsVoiceTemplate } from '../../../service/message-templates.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppMessageParamsSchema, SmsVoiceMessageResponseSchema, UpdateSmsVoiceMessageSchema } from '../../schemas/infobip.js';
import { toSmsVoiceMessageResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.put('/2fa/2/applications/:appId/messages/:msgId', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'update-2fa-message-template', tags: ['2FA message templates'], summary: 'Update an SMS/voice message template (fields left out keep their value)',
      params: AppMessageParamsSchema, body: UpdateSmsVoiceMessageSchema,
      response: { 200: SmsVoiceMessageResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await updateSmsVoiceTemplate(ctx, request.principal, request.params.appId, request.params.msgId, request.body), toSmsVoiceMessageResponse));
};
export default register;
