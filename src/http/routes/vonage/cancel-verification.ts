import { cancelVerification } from '../../../service/vonage-verifications.js';
import { respondNoContent, vonageErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { vonageRoute } from './route-options.js';
import { RequestIdParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/verify/:request_id', vonageRoute({
    operationId: 'vonage-cancel-verification',
    summary: 'Cancel a request in flight (204): its code no longer verifies, its later channels are not sent',
    params: RequestIdParams,
    response: { 204: { type: 'null', description: 'Canceled.' }, ...vonageErrorResponses(400, 401, 403, 404, 413, 415, 422, 429) },
  }), async (request, reply) => {
    const result = await cancelVerification(ctx, request.principal, request.vonageApplicationId, request.params.request_id);
    return respondNoContent(reply, result);
  });
};
export default register;
