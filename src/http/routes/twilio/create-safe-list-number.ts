import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { addSafeListNumber } from '../../../service/twilio-safe-list.js';
import { respondCreated, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toSafeListNumber } from './presenters.js';
import { FORM, SafeListBody, SafeListSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/SafeList/Numbers', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-create-safe-list-number', summary: 'Put a number on the Safe List: its sends pass the destination guards',
    consumes: FORM, body: SafeListBody,
    response: { 201: SafeListSchema, ...twilioErrorResponses(400, 401, 403) },
  }), async (request, reply) => {
    const result = await addSafeListNumber(ctx, request.principal, request.body.PhoneNumber);
    return respondCreated(reply, result, (created) => toSafeListNumber(request, created));
  });
};
export default register;
