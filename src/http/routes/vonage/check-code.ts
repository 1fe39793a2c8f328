import { checkCode } from '../../../service/vonage-verifications.js';
import { respond, vonageErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { vonageRoute } from './route-options.js';
import { CheckCodeBody, CheckedCodeSchema, RequestIdParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/verify/:request_id', vonageRoute({
    operationId: 'vonage-check-code',
    summary: 'Check the code: 200 completed; 400 a wrong code (counted), 410 too many wrong codes or expired, 404 unknown or verified already',
    params: RequestIdParams,
    body: CheckCodeBody,
    response: { 200: CheckedCodeSchema, ...vonageErrorResponses(400, 401, 403, 404, 410, 413, 415, 422, 429) },
  }), async (request, reply) => {
    const result = await checkCode(ctx, request.principal, request.vonageApplicationId, request.params.request_id, request.body.code);
    return respond(reply, result, (checked) => ({ request_id: checked.requestId, status: checked.status }));
  });
};
export default register;
