import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { createWebhook } from '../../../service/twilio-webhooks.js';
import { sendFailure, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { toWebhook } from './presenters.js';
import { CreateWebhookBody, FORM, ServiceSidParams, WebhookSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Webhooks', {
    config: { scope: SCOPE_MANAGE, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-create-webhook', tags: ['Twilio Verify'], summary: 'Send a Service\'s verification events to a URL, signed as Twilio signs',
      consumes: FORM, params: ServiceSidParams, body: CreateWebhookBody,
      response: { 201: WebhookSchema, ...twilioErrorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { FriendlyName, EventTypes, WebhookUrl, Status, Version } = request.body;
    const result = await createWebhook(ctx, request.principal, request.params.ServiceSid, {
      friendlyName: FriendlyName, eventTypes: ([] as string[]).concat(EventTypes), webhookUrl: WebhookUrl,
      ...(Status !== undefined && { status: Status }), ...(Version !== undefined && { version: Version }),
    });
    if (!result.ok) return sendFailure(reply, result.failure);
    return reply.code(201).send(toWebhook(request, result.value));
  });
};
export default register;
