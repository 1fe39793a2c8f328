import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { findEntity } from '../../../../service/factors.js';
import { respond, twilioErrorResponses } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { twilioRoute } from '../route-options.js';
import { toEntity } from './presenters.js';
import { EntityParams, EntitySchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/Entities/:Identity', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-fetch-entity', summary: 'Fetch an Entity by its identity',
    params: EntityParams,
    response: { 200: EntitySchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => respond(reply, await findEntity(ctx, request.principal, request.params.ServiceSid, request.params.Identity), (found) => toEntity(request, found)));
};
export default register;
