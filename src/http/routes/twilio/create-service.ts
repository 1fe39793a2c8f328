import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { createService } from '../../../service/twilio-services.js';
import { respondCreated, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { serviceChanges, toService } from './presenters.js';
import { CreateServiceBody, FORM, ServiceSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-create-service', summary: 'Create a Verify Service (an application with its message template)',
    consumes: FORM, body: CreateServiceBody,
    response: { 201: ServiceSchema, ...twilioErrorResponses(400, 401, 403, 429) },
  }), async (request, reply) => {
    const body = request.body as Record<string, string | undefined>;
    const result = await createService(ctx, request.principal, serviceChanges(body));
    return respondCreated(reply, result, (created) => toService(request, created));
  });
};
export default register;
