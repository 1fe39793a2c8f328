import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { createEntity } from '../../../../service/factors.js';
import { respondCreated, twilioErrorResponses } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { twilioRoute } from '../route-options.js';
import { FORM } from '../schemas.js';
import { toEntity } from './presenters.js';
import { CreateEntityBody, EntitySchema, ServiceParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Entities', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-create-entity', summary: 'Make an Entity: a user of the Service, by your id of them (an existing one is answered as it is)',
    consumes: FORM, params: ServiceParams, body: CreateEntityBody,
    response: { 201: EntitySchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => respondCreated(reply, await createEntity(ctx, request.principal, request.params.ServiceSid, request.body.Identity), (found) => toEntity(request, found)));
};
export default register;
