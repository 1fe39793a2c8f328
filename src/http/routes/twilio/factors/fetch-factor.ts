import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { findFactor } from '../../../../service/factors.js';
import { respond, twilioErrorResponses } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { twilioRoute } from '../route-options.js';
import { toFactor } from './presenters.js';
import { FactorParams, FactorSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/Entities/:Identity/Factors/:Sid', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-fetch-factor', summary: 'Fetch a Factor (never its secret)',
    params: FactorParams,
    response: { 200: FactorSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { ServiceSid, Identity, Sid } = request.params;
    return respond(reply, await findFactor(ctx, request.principal, ServiceSid, Identity, Sid), (found) => toFactor(request, found));
  });
};
export default register;
