import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { resendPin } from '../../../service/send-pin.js';
import { errorResponses, respond } from '../../error-envelope.js';
import { withNextResendAt } from '../../next-resend-header.js';
import type { RegisterRoute } from '../../route-types.js';
import { PinIdParamsSchema, ResendPinRequestSchema, StartAuthenticationResponseSchema } from '../../schemas/infobip.js';
import { toVoiceSendResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/2fa/2/pin/:pinId/resend/voice', {
    config: { scope: SCOPE_PIN_SEND, nextResendAt: true },
    schema: {
      operationId: 'resend-2fa-pin-code-over-voice', tags: ['2FA PINs'], summary: 'Resend the same PIN by voice call (also for a PIN first sent by SMS)',
      params: PinIdParamsSchema, body: ResendPinRequestSchema,
      response: { 200: StartAuthenticationResponseSchema, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request, reply) => {
    const body = request.body ?? {};
    const result = await resendPin(ctx, request.principal, request.params.pinId, 'voice', body);
    return respond(reply, result, (outcome) => withNextResendAt(reply, outcome, toVoiceSendResponse(outcome, { trackDelivery: body.trackDelivery })));
  });
};
export default register;
