import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { deleteFactor } from '../../../../service/factors.js';
import { respondNoContent, twilioErrorResponses } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { twilioRoute } from '../route-options.js';
import { FactorParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/Services/:ServiceSid/Entities/:Identity/Factors/:Sid', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-delete-factor', summary: 'Delete a Factor with its challenges',
    params: FactorParams,
    response: { 204: { type: 'null', description: 'Deleted.' }, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { ServiceSid, Identity, Sid } = request.params;
    return respondNoContent(reply, await deleteFactor(ctx, request.principal, ServiceSid, Identity, Sid));
  });
};
export default register;
