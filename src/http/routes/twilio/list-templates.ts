import { DEFAULT_LOCALE, BUILT_IN_TEMPLATES } from '../../../domain/twilio-templates.js';
import { accountSid } from '../../../domain/twilio-sids.js';
import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { isoDate, page } from './presenters.js';
import { TemplateListQuery, TemplatePageSchema } from './schemas.js';

const register: RegisterRoute = (app) => {
  app.get('/v2/Templates', {
    config: { scope: SCOPE_PIN_SEND, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-list-templates', tags: ['Twilio Verify'], summary: 'List the built-in message templates and their translations (the locales a start may ask for)',
      querystring: TemplateListQuery,
      response: { 200: TemplatePageSchema, ...twilioErrorResponses(400, 401, 403) },
    },
  }, async (request) => {
    const name = request.query.FriendlyName?.toLowerCase();
    const matching = BUILT_IN_TEMPLATES.filter((t) => name === undefined || t.friendlyName.toLowerCase().includes(name));
    const { items, meta } = page(request, '/Templates', 'templates', matching, request.query);
    return {
      templates: items.map((t) => ({
        sid: t.sid, account_sid: accountSid(request.principal.accountId), friendly_name: t.friendlyName, channels: [...t.channels],
        translations: Object.fromEntries(Object.entries(t.translations).map(([locale, text]) => [locale, {
          is_default_translation: locale === DEFAULT_LOCALE, status: 'approved', locale, text, date_updated: isoDate(t.createdAt), date_created: isoDate(t.createdAt),
        }])),
      })),
      meta,
    };
  });
};
export default register;
