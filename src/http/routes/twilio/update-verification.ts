import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { updateVerification } from '../../../service/twilio-verifications.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { toVerification } from './presenters.js';
import { FORM, ServiceAndSidParams, UpdateVerificationBody, VerificationSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Verifications/:Sid', {
    config: { scope: SCOPE_PIN_SEND, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-update-verification', tags: ['Twilio Verify'], summary: 'Approve or cancel a pending verification',
      consumes: FORM, params: ServiceAndSidParams, body: UpdateVerificationBody,
      response: { 200: VerificationSchema, ...twilioErrorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await updateVerification(ctx, request.principal, request.params.ServiceSid, request.params.Sid, request.body.Status), (v) => toVerification(request, v)));
};
export default register;
