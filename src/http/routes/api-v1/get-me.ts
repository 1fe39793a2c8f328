import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { whoAmI } from '../../../service/console-keys.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { MeResponseSchema } from '../../schemas/api-v1.js';
import { toMeResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  // Any valid key may ask who it is (the console signs in with it and checks for 2fa:manage).
  app.get('/api/v1/me', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'get-me', tags: ['API keys'], summary: 'The account and the scopes of the calling API key',
      response: { 200: MeResponseSchema, ...errorResponses(401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await whoAmI(ctx, request.principal), (me) => toMeResponse(request.principal, me)));
};
export default register;
