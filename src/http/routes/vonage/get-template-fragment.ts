import { resourceIdOfVonageId } from '../../../domain/vonage-ids.js';
import { getFragment } from '../../../service/vonage-templates.js';
import { respond, vonageErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { vonageRoute } from './route-options.js';
import { FragmentParams, FragmentSchema, presentFragment } from './template-schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/verify/templates/:template_id/template_fragments/:template_fragment_id', vonageRoute({
    operationId: 'vonage-get-template-fragment',
    summary: 'Read a fragment',
    params: FragmentParams,
    response: { 200: FragmentSchema, ...vonageErrorResponses(400, 401, 403, 404, 422, 429) },
  }), async (request, reply) => {
    const origin = `${request.protocol}://${request.host}`;
    const templateId = resourceIdOfVonageId(request.params.template_id);
    const result = await getFragment(ctx, request.principal, request.vonageApplicationId, templateId, resourceIdOfVonageId(request.params.template_fragment_id));
    return respond(reply, result, (f) => presentFragment(origin, templateId, f));
  });
};
export default register;
