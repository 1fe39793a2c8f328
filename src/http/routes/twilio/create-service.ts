import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { createService } from '../../../service/twilio-services.js';
import { sendFailure, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { settingsPatch, toService } from './presenters.js';
import { CreateServiceBody, FORM, ServiceSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-create-service', tags: ['Twilio Verify'], summary: 'Create a Verify Service (an application with its message template)',
      consumes: FORM, body: CreateServiceBody,
      response: { 201: ServiceSchema, ...twilioErrorResponses(400, 401, 403, 429) },
    },
  }, async (request, reply) => {
    const body = request.body as Record<string, string | undefined>;
    const result = await createService(ctx, request.principal, {
      ...(body['FriendlyName'] !== undefined ? { friendlyName: body['FriendlyName'] } : {}),
      ...(body['CodeLength'] !== undefined ? { codeLength: Number(body['CodeLength']) } : {}),
      settings: settingsPatch(body),
    });
    if (!result.ok) return sendFailure(reply, result.failure);
    return reply.code(201).send(toService(request, result.value));
  });
};
export default register;
