import { resourceIdOfVonageId } from '../../../domain/vonage-ids.js';
import { updateTemplate } from '../../../service/vonage-templates.js';
import { respond, vonageErrorResponses } from '../../error-envelope.js';
import { definedFields } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { vonageRoute } from './route-options.js';
import { presentTemplate, TemplateParams, TemplateSchema, UpdateTemplateBody } from './template-schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.patch('/v2/verify/templates/:template_id', vonageRoute({
    operationId: 'vonage-update-template',
    summary: 'Rename a template, or make it (or stop it being) the default of starts without template_id',
    params: TemplateParams,
    body: UpdateTemplateBody,
    response: { 200: TemplateSchema, ...vonageErrorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429) },
  }), async (request, reply) => {
    const origin = `${request.protocol}://${request.host}`;
    const { name, is_default: isDefault } = request.body;
    const result = await updateTemplate(ctx, request.principal, request.vonageApplicationId, resourceIdOfVonageId(request.params.template_id), definedFields({ name, isDefault }));
    return respond(reply, result, (t) => presentTemplate(origin, t));
  });
};
export default register;
