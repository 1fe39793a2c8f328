import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { deleteEntity } from '../../../../service/factors.js';
import { respondNoContent, twilioErrorResponses } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { twilioRoute } from '../route-options.js';
import { EntityParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/Services/:ServiceSid/Entities/:Identity', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-delete-entity', summary: 'Delete an Entity with all its factors and challenges',
    params: EntityParams,
    response: { 204: { type: 'null', description: 'Deleted.' }, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => respondNoContent(reply, await deleteEntity(ctx, request.principal, request.params.ServiceSid, request.params.Identity)));
};
export default register;
