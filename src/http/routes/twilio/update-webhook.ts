import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { updateWebhook } from '../../../service/twilio-webhooks.js';
import { respond, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toWebhook } from './presenters.js';
import { FORM, UpdateWebhookBody, WebhookParams, WebhookSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Webhooks/:Sid', twilioRoute(SCOPE_MANAGE, {
    operationId: 'twilio-update-webhook', summary: 'Change a Webhook (parameters left out keep their values)',
    consumes: FORM, params: WebhookParams, body: UpdateWebhookBody,
    response: { 200: WebhookSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { FriendlyName, EventTypes, WebhookUrl, Status, Version } = request.body as Record<string, string | string[] | undefined>;
    const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
    const input = {
      ...(FriendlyName !== undefined && { friendlyName: one(FriendlyName)! }), ...(EventTypes !== undefined && { eventTypes: ([] as string[]).concat(EventTypes) }),
      ...(WebhookUrl !== undefined && { webhookUrl: one(WebhookUrl)! }), ...(Status !== undefined && { status: one(Status)! }), ...(Version !== undefined && { version: one(Version)! }),
    };
    return respond(reply, await updateWebhook(ctx, request.principal, request.params.ServiceSid, request.params.Sid, input), (w) => toWebhook(request, w));
  });
};
export default register;
