import { resourceIdOfVonageId } from '../../../domain/vonage-ids.js';
import { listFragments } from '../../../service/vonage-templates.js';
import { respond, vonageErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { vonageRoute } from './route-options.js';
import { FragmentPageSchema, PageQuery, pageOfItems, presentFragment, TemplateParams, templateUrl } from './template-schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/verify/templates/:template_id/template_fragments', vonageRoute({
    operationId: 'vonage-list-template-fragments',
    summary: 'List a template\'s fragments (its locale texts), a page at a time',
    params: TemplateParams,
    querystring: PageQuery,
    response: { 200: FragmentPageSchema, ...vonageErrorResponses(400, 401, 403, 404, 422, 429) },
  }), async (request, reply) => {
    const origin = `${request.protocol}://${request.host}`;
    const templateId = resourceIdOfVonageId(request.params.template_id);
    const result = await listFragments(ctx, request.principal, request.vonageApplicationId, templateId);
    return respond(reply, result, (fragments) => {
      const { embedded, ...page } = pageOfItems(`${templateUrl(origin, templateId)}/template_fragments`, fragments, request.query, (f) => presentFragment(origin, templateId, f));
      return { ...page, _embedded: { template_fragments: embedded } };
    });
  });
};
export default register;
