import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { listTemplates } from '../../../service/twilio-templates.js';
import { twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { listPage, toTemplate } from './presenters.js';
import { TemplateListQuery, TemplatePageSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Templates', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-list-templates', summary: 'List the built-in message template and the account\'s custom ones (its applications\' named templates) with their translations by locale',
    querystring: TemplateListQuery,
    response: { 200: TemplatePageSchema, ...twilioErrorResponses(400, 401, 403) },
  }), async (request) => {
    const name = request.query.FriendlyName?.toLowerCase();
    const matching = (await listTemplates(ctx, request.principal)).filter((t) => name === undefined || t.friendlyName.toLowerCase().includes(name));
    return listPage(request, '/Templates', 'templates', matching, (t) => toTemplate(request, t));
  });
};
export default register;
