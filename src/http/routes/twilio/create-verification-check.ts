import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { checkVerification } from '../../../service/twilio-verifications.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import { definedFields } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toVerificationCheck } from './presenters.js';
import { FORM, ServiceSidParams, VerificationCheckBody, VerificationCheckSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  // 200, as the live API answers (Twilio's document lists 201 too; the SDKs take either).
  app.post('/v2/Services/:ServiceSid/VerificationCheck', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-create-verification-check',
    summary: 'Check a code, by To or VerificationSid: a wrong code answers 200 with status pending and valid false',
    consumes: FORM, params: ServiceSidParams, body: VerificationCheckBody,
    response: { 200: VerificationCheckSchema, ...twilioErrorResponses(400, 401, 403, 404, 429) },
  }), async (request, reply) => {
    const { Code, To, VerificationSid, Amount, Payee } = request.body;
    const result = await checkVerification(ctx, request.principal, request.params.ServiceSid, {
      code: Code, ...definedFields({ to: To, verificationSid: VerificationSid, amount: Amount, payee: Payee }),
    });
    return respond(reply, result, (outcome) => toVerificationCheck(outcome.verification, outcome.valid));
  });
};
export default register;
