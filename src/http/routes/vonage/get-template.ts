import { resourceIdOfVonageId } from '../../../domain/vonage-ids.js';
import { getTemplate } from '../../../service/vonage-templates.js';
import { respond, vonageErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { vonageRoute } from './route-options.js';
import { presentTemplate, TemplateParams, TemplateSchema } from './template-schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/verify/templates/:template_id', vonageRoute({
    operationId: 'vonage-get-template',
    summary: 'Read a template',
    params: TemplateParams,
    response: { 200: TemplateSchema, ...vonageErrorResponses(400, 401, 403, 404, 422, 429) },
  }), async (request, reply) => {
    const origin = `${request.protocol}://${request.host}`;
    const result = await getTemplate(ctx, request.principal, request.vonageApplicationId, resourceIdOfVonageId(request.params.template_id));
    return respond(reply, result, (t) => presentTemplate(origin, t));
  });
};
export default register;
