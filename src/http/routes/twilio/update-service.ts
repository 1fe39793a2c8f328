import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updateService } from '../../../service/twilio-services.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { settingsPatch, toService } from './presenters.js';
import { FORM, ServiceSchema, SidParams, UpdateServiceBody } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:Sid', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-update-service', tags: ['Twilio Verify'], summary: 'Update a Verify Service: parameters left out keep their values',
      consumes: FORM, params: SidParams, body: UpdateServiceBody,
      response: { 200: ServiceSchema, ...twilioErrorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request, reply) => {
    const body = request.body as Record<string, string | undefined>;
    const result = await updateService(ctx, request.principal, request.params.Sid, {
      ...(body['FriendlyName'] !== undefined ? { friendlyName: body['FriendlyName'] } : {}),
      ...(body['CodeLength'] !== undefined ? { codeLength: Number(body['CodeLength']) } : {}),
      settings: settingsPatch(body),
    });
    return respond(reply, result, (service) => toService(request, service));
  });
};
export default register;
