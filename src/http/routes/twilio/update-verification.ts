import { hasScope, SCOPE_PIN_APPROVE, SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { updateVerification } from '../../../service/twilio-verifications.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import { sendScopeMissing } from '../../plugins/auth.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toVerification } from './presenters.js';
import { FORM, ServiceAndSidParams, UpdateVerificationBody, VerificationSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Verifications/:Sid', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-update-verification', summary: 'Approve (scope 2fa:pin:approve) or cancel a pending verification',
    consumes: FORM, params: ServiceAndSidParams, body: UpdateVerificationBody,
    response: { 200: VerificationSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { Status } = request.body;
    // An approval skips the code: it needs a scope of its own, checked before the SID is looked up.
    if (Status === 'approved' && !hasScope(request.principal, SCOPE_PIN_APPROVE)) return sendScopeMissing(reply, SCOPE_PIN_APPROVE);
    return respond(reply, await updateVerification(ctx, request.principal, request.params.ServiceSid, request.params.Sid, Status), (v) => toVerification(request, v));
  });
};
export default register;
