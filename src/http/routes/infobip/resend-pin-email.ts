import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { resendPin } from '../../../service/send-pin.js';
import { errorResponses, respond } from '../../error-envelope.js';
import { withNextResendAt } from '../../next-resend-header.js';
import type { RegisterRoute } from '../../route-types.js';
import { PinIdParamsSchema, ResendPinViaEmailRequestSchema, StartEmailAuthenticationResponseSchema } from '../../schemas/infobip.js';
import { toEmailSendResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/2fa/2/pin/:pinId/resend/email', {
    config: { scope: SCOPE_PIN_SEND, nextResendAt: true },
    schema: {
      operationId: 'resend-2fa-pin-code-over-email', tags: ['2FA PINs'], summary: 'Resend the same PIN by email (the body is optional)',
      params: PinIdParamsSchema, body: ResendPinViaEmailRequestSchema,
      response: { 200: StartEmailAuthenticationResponseSchema, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request, reply) => respond(reply, await resendPin(ctx, request.principal, request.params.pinId, 'email', request.body ?? {}), (outcome) => withNextResendAt(reply, outcome, toEmailSendResponse(outcome))));
};
export default register;
