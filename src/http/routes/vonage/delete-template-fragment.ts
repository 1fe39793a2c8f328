import { resourceIdOfVonageId } from '../../../domain/vonage-ids.js';
import { deleteFragment } from '../../../service/vonage-templates.js';
import { respondNoContent, vonageErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { vonageRoute } from './route-options.js';
import { FragmentParams } from './template-schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/v2/verify/templates/:template_id/template_fragments/:template_fragment_id', vonageRoute({
    operationId: 'vonage-delete-template-fragment',
    summary: 'Delete a fragment (204): its locale falls back to the chain\'s next text',
    params: FragmentParams,
    response: { 204: { type: 'null', description: 'Deleted.' }, ...vonageErrorResponses(400, 401, 403, 404, 422, 429) },
  }), async (request, reply) => {
    const result = await deleteFragment(ctx, request.principal, request.vonageApplicationId, resourceIdOfVonageId(request.params.template_id), resourceIdOfVonageId(request.params.template_fragment_id));
    return respondNoContent(reply, result);
  });
};
export default register;
