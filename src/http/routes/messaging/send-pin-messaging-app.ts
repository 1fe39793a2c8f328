// twofa's own extension of the Infobip send and resend operations: the same request and answer as
// the SMS send, for the channels Infobip's 2FA API does not have (WhatsApp authentication templates,
// the Telegram Gateway). The paths sit beside /2fa/2/pin/voice and /2fa/2/pin/email so that a client
// switches channel by path alone; no Infobip-shaped body gains a field.
import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { resendPin, sendPin } from '../../../service/send-pin.js';
import { errorResponses, respond } from '../../error-envelope.js';
import { withNextResendAt } from '../../next-resend-header.js';
import type { RegisterRoute } from '../../route-types.js';
import { PinIdParamsSchema, ResendPinRequestSchema, StartAuthenticationRequestSchema, StartAuthenticationResponseSchema } from '../../schemas/infobip.js';
import { toSmsSendResponse } from '../infobip/presenters.js';

const CHANNELS = [
  { channel: 'whatsapp', name: 'WhatsApp (an authentication template: only the code travels)' },
  { channel: 'telegram', name: 'Telegram (the Telegram Gateway: only the code travels)' },
] as const;

const register: RegisterRoute = (app, { ctx }) => {
  for (const { channel, name } of CHANNELS) {
    app.post(`/2fa/2/pin/${channel}`, {
      config: { scope: SCOPE_PIN_SEND, nextResendAt: true },
      schema: {
        operationId: `send-2fa-pin-code-over-${channel}`, tags: ['2FA PINs', 'twofa extensions'], summary: `Send a PIN by ${name}; twofa's extension, answered like the SMS send`,
        body: StartAuthenticationRequestSchema,
        response: { 200: StartAuthenticationResponseSchema, ...errorResponses(400, 401, 403, 429) },
      },
    }, async (request, reply) => {
      const result = await sendPin(ctx, request.principal, channel, request.body);
      return respond(reply, result, (outcome) => withNextResendAt(reply, outcome, toSmsSendResponse(outcome, { ncNeeded: false, trackDelivery: request.body.trackDelivery })));
    });

    app.post(`/2fa/2/pin/:pinId/resend/${channel}`, {
      config: { scope: SCOPE_PIN_SEND, nextResendAt: true },
      schema: {
        operationId: `resend-2fa-pin-code-over-${channel}`, tags: ['2FA PINs', 'twofa extensions'],
        summary: `Resend the same PIN by ${name}; twofa's extension (the body is optional)`,
        params: PinIdParamsSchema, body: ResendPinRequestSchema,
        response: { 200: StartAuthenticationResponseSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    }, async (request, reply) => {
      const body = request.body ?? {};
      const result = await resendPin(ctx, request.principal, request.params.pinId, channel, body);
      return respond(reply, result, (outcome) => withNextResendAt(reply, outcome, toSmsSendResponse(outcome, { ncNeeded: false, trackDelivery: body.trackDelivery })));
    });
  }
};
export default register;
