import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { removeSafeListNumber } from '../../../service/twilio-safe-list.js';
import { respondNoContent, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { SafeListParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/SafeList/Numbers/:PhoneNumber', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-delete-safe-list-number', summary: 'Take a number off the Safe List',
    params: SafeListParams,
    response: { 204: { type: 'null', description: 'Removed.' }, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    return respondNoContent(reply, await removeSafeListNumber(ctx, request.principal, request.params.PhoneNumber));
  });
};
export default register;
