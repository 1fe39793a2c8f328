import { BUILT_IN_TEMPLATES } from '../../../domain/twilio-templates.js';
import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { listPage, toTemplate } from './presenters.js';
import { TemplateListQuery, TemplatePageSchema } from './schemas.js';

const register: RegisterRoute = (app) => {
  app.get('/v2/Templates', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-list-templates', summary: 'List the built-in message templates and their translations (the locales a start may ask for)',
    querystring: TemplateListQuery,
    response: { 200: TemplatePageSchema, ...twilioErrorResponses(400, 401, 403) },
  }), async (request) => {
    const name = request.query.FriendlyName?.toLowerCase();
    const matching = BUILT_IN_TEMPLATES.filter((t) => name === undefined || t.friendlyName.toLowerCase().includes(name));
    return listPage(request, '/Templates', 'templates', matching, (t) => toTemplate(request, t));
  });
};
export default register;
