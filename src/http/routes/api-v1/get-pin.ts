import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { getPinDetails } from '../../../service/delivery-tracking.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { PinDetailsResponseSchema, PinIdParamsSchema } from '../../schemas/api-v1.js';
import { toPinDetailsResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/pins/:pinId', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'get-pin', tags: ['PINs'], summary: 'A PIN\'s state, delivery status and delivery history (never the PIN)',
      params: PinIdParamsSchema,
      response: { 200: PinDetailsResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await getPinDetails(ctx, request.principal, request.params.pinId), toPinDetailsResponse));
};
export default register;
