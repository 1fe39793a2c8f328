import { listTemplates } from '../../../service/vonage-templates.js';
import { respond, vonageErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { vonageRoute } from './route-options.js';
import { PageQuery, pageOfItems, presentTemplate, TemplatePageSchema, templatesUrl } from './template-schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/verify/templates', vonageRoute({
    operationId: 'vonage-list-templates',
    summary: 'List the application\'s templates (its named SMS/voice message templates), a page at a time',
    querystring: PageQuery,
    response: { 200: TemplatePageSchema, ...vonageErrorResponses(400, 401, 403, 422, 429) },
  }), async (request, reply) => {
    const origin = `${request.protocol}://${request.host}`;
    const result = await listTemplates(ctx, request.principal, request.vonageApplicationId);
    return respond(reply, result, (templates) => {
      const { embedded, ...page } = pageOfItems(templatesUrl(origin), templates, request.query, (t) => presentTemplate(origin, t));
      return { ...page, _embedded: { templates: embedded } };
    });
  });
};
export default register;
