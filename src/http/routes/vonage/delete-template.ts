import { resourceIdOfVonageId } from '../../../domain/vonage-ids.js';
import { deleteTemplate } from '../../../service/vonage-templates.js';
import { respondNoContent, vonageErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { vonageRoute } from './route-options.js';
import { TemplateParams } from './template-schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/verify/templates/:template_id', vonageRoute({
    operationId: 'vonage-delete-template',
    summary: 'Delete a template (204); 409 while it has fragments',
    params: TemplateParams,
    response: { 204: { type: 'null', description: 'Deleted.' }, ...vonageErrorResponses(400, 401, 403, 404, 409, 422, 429) },
  }), async (request, reply) => {
    const result = await deleteTemplate(ctx, request.principal, request.vonageApplicationId, resourceIdOfVonageId(request.params.template_id));
    return respondNoContent(reply, result);
  });
};
export default register;
