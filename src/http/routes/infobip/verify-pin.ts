import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { verifyPin } from '../../../service/verify-pin.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { PinIdParamsSchema, VerifyPinRequestSchema, VerifyPinResponseSchema } from '../../schemas/infobip.js';
import { toVerifyResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/2fa/2/pin/:pinId/verify', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'verify-2fa-phone-number', tags: ['2FA PINs'],
      summary: 'Verify a PIN: every counted attempt answers 200 with verified and, on failure, pinError',
      params: PinIdParamsSchema, body: VerifyPinRequestSchema,
      response: { 200: VerifyPinResponseSchema, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request, reply) => respond(reply, await verifyPin(ctx, request.principal, request.params.pinId, request.body.pin), toVerifyResponse));
};
export default register;
