import { resourceIdOfVonageId } from '../../../domain/vonage-ids.js';
import { updateFragment } from '../../../service/vonage-templates.js';
import { respond, vonageErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { vonageRoute } from './route-options.js';
import { FragmentParams, FragmentSchema, presentFragment, UpdateFragmentBody } from './template-schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.patch('/v2/verify/templates/:template_id/template_fragments/:template_fragment_id', vonageRoute({
    operationId: 'vonage-update-template-fragment',
    summary: 'Change a fragment\'s text',
    params: FragmentParams,
    body: UpdateFragmentBody,
    response: { 200: FragmentSchema, ...vonageErrorResponses(400, 401, 403, 404, 413, 415, 422, 429) },
  }), async (request, reply) => {
    const origin = `${request.protocol}://${request.host}`;
    const templateId = resourceIdOfVonageId(request.params.template_id);
    const result = await updateFragment(ctx, request.principal, request.vonageApplicationId, templateId, resourceIdOfVonageId(request.params.template_fragment_id), request.body.text);
    return respond(reply, result, (f) => presentFragment(origin, templateId, f));
  });
};
export default register;
