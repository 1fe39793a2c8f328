import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { fetchVerification } from '../../../service/twilio-verifications.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toVerification } from './presenters.js';
import { ServiceAndSidParams, VerificationSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/Verifications/:Sid', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-fetch-verification', summary: 'Fetch a verification (approved and expired ones are gone: 404)',
    params: ServiceAndSidParams,
    response: { 200: VerificationSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => respond(reply, await fetchVerification(ctx, request.principal, request.params.ServiceSid, request.params.Sid), (v) => toVerification(request, v)));
};
export default register;
