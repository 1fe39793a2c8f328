import { SCOPE_MANAGE } from '../../../../service/api-keys.js';
import { listEntities } from '../../../../service/factors.js';
import { respond, twilioErrorResponses } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { twilioRoute } from '../route-options.js';
import { PageQuery } from '../schemas.js';
import { storePage, storeWindow, toEntity } from './presenters.js';
import { EntityPageSchema, ServiceParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/Entities', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-list-entities', summary: 'List the Service\'s Entities, oldest first, in pages',
    params: ServiceParams, querystring: PageQuery,
    response: { 200: EntityPageSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { offset, limit } = storeWindow(request);
    return respond(reply, await listEntities(ctx, request.principal, request.params.ServiceSid, offset, limit), ({ service, entities }) => (
      storePage(request, `/Services/${request.params.ServiceSid}/Entities`, 'entities', entities, (entity) => toEntity(request, { service, entity }))
    ));
  });
};
export default register;
