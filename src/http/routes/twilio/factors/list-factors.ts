import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { listFactors } from '../../../../service/factors.js';
import { respond, twilioErrorResponses } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { listPage } from '../presenters.js';
import { twilioRoute } from '../route-options.js';
import { PageQuery } from '../schemas.js';
import { toFactor } from './presenters.js';
import { EntityParams, FactorPageSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/Entities/:Identity/Factors', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-list-factors', summary: 'List an Entity\'s Factors, oldest first, in pages',
    params: EntityParams, querystring: PageQuery,
    response: { 200: FactorPageSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { ServiceSid, Identity } = request.params;
    return respond(reply, await listFactors(ctx, request.principal, ServiceSid, Identity), ({ service, entity, factors }) => (
      listPage(request, `/Services/${ServiceSid}/Entities/${encodeURIComponent(Identity)}/Factors`, 'factors', factors, (factor) => toFactor(request, { service, entity, factor }))
    ));
  });
};
export default register;
