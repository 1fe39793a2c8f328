import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { checkVerification } from '../../../service/prelude-verifications.js';
import { preludeErrorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { toVerificationCheck } from './presenters.js';
import { preludeRoute } from './route-options.js';
import { CheckVerificationBody, CheckVerificationSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/verification/check', preludeRoute(SCOPE_PIN_SEND, {
    operationId: 'prelude-check-verification',
    summary: 'Check the code of the target\'s live verification: 200 with status success, failure (a wrong code, counted) or expired_or_not_found',
    body: CheckVerificationBody,
    response: { 200: CheckVerificationSchema, ...preludeErrorResponses(400, 401, 403, 404, 413, 415, 429) },
  }), async (request, reply) => {
    const result = await checkVerification(ctx, request.principal, { target: request.body.target, code: request.body.code });
    return respond(reply, result, (outcome) => toVerificationCheck(outcome, request.id));
  });
};
export default register;
