import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { startVerification } from '../../../service/twilio-verifications.js';
import { respondCreated, twilioErrorResponses } from '../../error-envelope.js';
import { definedFields } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { twilioRoute } from './route-options.js';
import { toVerification } from './presenters.js';
import { CreateVerificationBody, FORM, ServiceSidParams, VerificationSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Verifications', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-create-verification',
    summary: 'Start a verification (sms, call, email); a second start to a pending To re-sends the same code',
    consumes: FORM, params: ServiceSidParams, body: CreateVerificationBody,
    response: { 201: VerificationSchema, ...twilioErrorResponses(400, 401, 403, 404, 429) },
  }), async (request, reply) => {
    const { To, Channel, CustomFriendlyName, RateLimits, Locale, TemplateSid, TemplateCustomSubstitutions, CustomCode, AppHash, Amount, Payee, ChannelConfiguration, DeviceIp } = request.body;
    const result = await startVerification(ctx, request.principal, request.params.ServiceSid, {
      to: To, channel: Channel,
      ...definedFields({
        customFriendlyName: CustomFriendlyName, rateLimits: RateLimits, locale: Locale, templateSid: TemplateSid, templateCustomSubstitutions: TemplateCustomSubstitutions, customCode: CustomCode,
        appHash: AppHash, amount: Amount, payee: Payee, channelConfiguration: ChannelConfiguration, deviceIp: DeviceIp,
      }),
    });
    return respondCreated(reply, result, (created) => toVerification(request, created));
  });
};
export default register;
