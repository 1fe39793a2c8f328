import { startVerification } from '../../../service/vonage-verifications.js';
import { sendFailure, vonageErrorResponses } from '../../error-envelope.js';
import { definedFields } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { vonageRoute } from './route-options.js';
import { StartedVerificationSchema, StartVerificationBody } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/verify', vonageRoute({
    operationId: 'vonage-start-verification',
    summary: 'Start a verification: the code goes out on the workflow\'s first channel, the next ones channel_timeout apart until it is checked (202)',
    body: StartVerificationBody,
    response: { 202: StartedVerificationSchema, ...vonageErrorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429) },
  }), async (request, reply) => {
    const { brand, workflow, locale, channel_timeout: channelTimeout, code, code_length: codeLength, template_id: templateId, client_ref: clientRef } = request.body;
    const result = await startVerification(ctx, request.principal, request.vonageApplicationId, {
      brand, workflow: workflow.map((step) => ({ channel: step.channel, to: step.to, ...definedFields({ from: step.from }) })),
      ...definedFields({ locale, channelTimeout, code, codeLength, templateId, clientRef }),
    });
    if (!result.ok) return sendFailure(reply, result.failure);
    return reply.code(202).send({ request_id: result.value.requestId });
  });
};
export default register;
