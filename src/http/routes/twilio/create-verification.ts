import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { startVerification } from '../../../service/twilio-verifications.js';
import { sendFailure, twilioErrorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { toVerification } from './presenters.js';
import { CreateVerificationBody, FORM, ServiceSidParams, VerificationSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Verifications', {
    config: { scope: SCOPE_PIN_SEND, dialect: 'twilio' },
    schema: {
      operationId: 'twilio-create-verification', tags: ['Twilio Verify'],
      summary: 'Start a verification (sms, call, email); a second start to a pending To re-sends the same code',
      consumes: FORM, params: ServiceSidParams, body: CreateVerificationBody,
      response: { 201: VerificationSchema, ...twilioErrorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request, reply) => {
    const { To, Channel, CustomFriendlyName, RateLimits, Locale, TemplateSid, CustomCode, AppHash, Amount, Payee, ChannelConfiguration } = request.body;
    const result = await startVerification(ctx, request.principal, request.params.ServiceSid, {
      to: To, channel: Channel, ...(CustomFriendlyName !== undefined ? { customFriendlyName: CustomFriendlyName } : {}),
      ...(RateLimits !== undefined ? { rateLimits: RateLimits } : {}),
      ...(Locale !== undefined ? { locale: Locale } : {}), ...(TemplateSid !== undefined ? { templateSid: TemplateSid } : {}),
      ...(CustomCode !== undefined ? { customCode: CustomCode } : {}), ...(AppHash !== undefined ? { appHash: AppHash } : {}),
      ...(Amount !== undefined ? { amount: Amount } : {}), ...(Payee !== undefined ? { payee: Payee } : {}),
      ...(ChannelConfiguration !== undefined ? { channelConfiguration: ChannelConfiguration } : {}),
    });
    if (!result.ok) return sendFailure(reply, result.failure);
    return reply.code(201).send(toVerification(request, result.value));
  });
};
export default register;
