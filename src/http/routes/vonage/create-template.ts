import { createTemplate } from '../../../service/vonage-templates.js';
import { respondCreated, vonageErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { vonageRoute } from './route-options.js';
import { CreateTemplateBody, presentTemplate, TemplateSchema } from './template-schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/verify/templates', vonageRoute({
    operationId: 'vonage-create-template',
    summary: 'Create a template (201): its default text is the built-in one until fragments give locales theirs; 409 for a name taken or ten templates',
    body: CreateTemplateBody,
    response: { 201: TemplateSchema, ...vonageErrorResponses(400, 401, 403, 409, 413, 415, 422, 429) },
  }), async (request, reply) => {
    const origin = `${request.protocol}://${request.host}`;
    const result = await createTemplate(ctx, request.principal, request.vonageApplicationId, request.body.name);
    return respondCreated(reply, result, (t) => presentTemplate(origin, t));
  });
};
export default register;
