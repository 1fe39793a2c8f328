import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { getPinDetails } from '../../../service/delivery-tracking.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { PinDetailsResponseSchema, PinIdParamsSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/pins/:pinId', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'get-pin', tags: ['PINs'], summary: 'A PIN\'s state, delivery status and delivery history (never the PIN)',
      params: PinIdParamsSchema,
      response: { 200: PinDetailsResponseSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => respond(reply, await getPinDetails(ctx, request.principal, request.params.pinId), ({ pin, state, history, nextResendAt, workflow }) => ({
    pinId: pin.id, applicationId: pin.applicationId, messageId: pin.messageId, channel: pin.channel, to: pin.destination, state,
    attemptsRemaining: pin.attemptsLeft, createdAt: pin.createdAt, expiresAt: pin.expiresAt, verifiedAt: pin.verifiedAt, sendCount: pin.sendCount,
    testNumber: pin.testNumber,
    delivery: {
      status: pin.deliveryStatus, transport: pin.deliveryTransport, providerMessageId: pin.providerMessageId,
      sentAt: pin.sentAt, deliveredAt: pin.deliveredAt, error: pin.deliveryError,
    },
    history,
    nextResendAt: nextResendAt === null ? null : new Date(nextResendAt).toISOString(),
    ...(workflow.length > 0 ? {
      workflow: workflow.map((s) => ({ step: s.step, channel: s.channel, state: s.state, dueAt: s.dueAt === null ? null : new Date(s.dueAt).toISOString(), reason: s.reason })),
    } : {}),
  })));
};
export default register;
