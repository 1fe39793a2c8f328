import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { sendPin } from '../../../service/send-pin.js';
import { errorResponses, respond } from '../../error-envelope.js';
import { clientSignalHeaders } from '../../request-fields.js';
import { withNextResendAt } from '../../next-resend-header.js';
import type { RegisterRoute } from '../../route-types.js';
import { NcNeededQuerySchema, StartAuthenticationRequestSchema, StartAuthenticationResponseSchema, ncNeededFrom } from '../../schemas/infobip.js';
import { toSmsSendResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/2fa/2/pin', {
    config: { scope: SCOPE_PIN_SEND, nextResendAt: true },
    schema: {
      operationId: 'send-2fa-pin-code-over-sms', tags: ['2FA PINs'], summary: 'Send a PIN by SMS',
      querystring: NcNeededQuerySchema, body: StartAuthenticationRequestSchema,
      response: { 200: StartAuthenticationResponseSchema, ...errorResponses(400, 401, 403, 429) },
    },
  }, async (request, reply) => {
    const result = await sendPin(ctx, request.principal, 'sms', { ...request.body, client: clientSignalHeaders(request.headers) });
    return respond(reply, result, (outcome) => withNextResendAt(reply, outcome, toSmsSendResponse(outcome, { ncNeeded: ncNeededFrom(request.query), trackDelivery: request.body.trackDelivery })));
  });
};
export default register;
