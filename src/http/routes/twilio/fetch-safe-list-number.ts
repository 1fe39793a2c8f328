import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { getSafeListNumber } from '../../../service/twilio-safe-list.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toSafeListNumber } from './presenters.js';
import { SafeListParams, SafeListSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/SafeList/Numbers/:PhoneNumber', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-fetch-safe-list-number', summary: 'Whether a number is on the Safe List (404 when not)',
    params: SafeListParams,
    response: { 200: SafeListSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => respond(reply, await getSafeListNumber(ctx, request.principal, request.params.PhoneNumber), (entry) => toSafeListNumber(request, entry)));
};
export default register;
