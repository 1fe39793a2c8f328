import { nextWorkflow } from '../../../service/vonage-verifications.js';
import { sendFailure, vonageErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { vonageRoute } from './route-options.js';
import { RequestIdParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/verify/:request_id/next_workflow', vonageRoute({
    operationId: 'vonage-next-workflow',
    summary: 'Send the workflow\'s next channel now instead of after channel_timeout (200); 409 when no channel is left',
    params: RequestIdParams,
    response: { 200: { type: 'null', description: 'The next channel is due now (no body, as Vonage answers).' }, ...vonageErrorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429) },
  }), async (request, reply) => {
    const result = await nextWorkflow(ctx, request.principal, request.vonageApplicationId, request.params.request_id);
    if (!result.ok) return sendFailure(reply, result.failure);
    return reply.code(200).send();
  });
};
export default register;
