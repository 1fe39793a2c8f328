import { resourceIdOfVonageId } from '../../../domain/vonage-ids.js';
import { createFragment } from '../../../service/vonage-templates.js';
import { respondCreated, vonageErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { vonageRoute } from './route-options.js';
import { CreateFragmentBody, FragmentSchema, presentFragment, TemplateParams } from './template-schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/verify/templates/:template_id/template_fragments', vonageRoute({
    operationId: 'vonage-create-template-fragment',
    summary: 'Add a fragment (201): the template\'s text of one channel and locale, which a start\'s locale picks; 409 when that pair has one',
    params: TemplateParams,
    body: CreateFragmentBody,
    response: { 201: FragmentSchema, ...vonageErrorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429) },
  }), async (request, reply) => {
    const origin = `${request.protocol}://${request.host}`;
    const templateId = resourceIdOfVonageId(request.params.template_id);
    const result = await createFragment(ctx, request.principal, request.vonageApplicationId, templateId, request.body);
    return respondCreated(reply, result, (f) => presentFragment(origin, templateId, f));
  });
};
export default register;
