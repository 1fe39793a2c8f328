import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { createWebhook } from '../../../service/twilio-webhooks.js';
import { respondCreated, twilioErrorResponses } from '../../error-envelope.js';
import { definedFields } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toWebhook } from './presenters.js';
import { CreateWebhookBody, FORM, ServiceSidParams, WebhookSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Webhooks', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-create-webhook', summary: 'Send a Service\'s verification events to a URL, signed as Twilio signs',
    consumes: FORM, params: ServiceSidParams, body: CreateWebhookBody,
    response: { 201: WebhookSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { FriendlyName, EventTypes, WebhookUrl, Status, Version } = request.body;
    const result = await createWebhook(ctx, request.principal, request.params.ServiceSid, {
      friendlyName: FriendlyName, eventTypes: ([] as string[]).concat(EventTypes), webhookUrl: WebhookUrl,
      ...definedFields({ status: Status, version: Version }),
    });
    return respondCreated(reply, result, (created) => toWebhook(request, created));
  });
};
export default register;
