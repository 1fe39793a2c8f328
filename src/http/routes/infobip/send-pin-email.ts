import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { sendPin } from '../../../service/send-pin.js';
import { errorResponses, respond } from '../../error-envelope.js';
import { withNextResendAt } from '../../next-resend-header.js';
import type { RegisterRoute } from '../../route-types.js';
import { StartEmailAuthenticationRequestSchema, StartEmailAuthenticationResponseSchema } from '../../schemas/infobip.js';
import { toEmailSendResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/2fa/2/pin/email', {
    config: { scope: SCOPE_PIN_SEND, nextResendAt: true },
    schema: {
      operationId: 'send-2fa-pin-code-over-email', tags: ['2FA PINs'], summary: 'Send a PIN by email',
      body: StartEmailAuthenticationRequestSchema,
      response: { 200: StartEmailAuthenticationResponseSchema, ...errorResponses(400, 401, 403, 429) },
    },
  }, async (request, reply) => respond(reply, await sendPin(ctx, request.principal, 'email', request.body), (outcome) => withNextResendAt(reply, outcome, toEmailSendResponse(outcome))));
};
export default register;
