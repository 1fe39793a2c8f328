import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { invalidParameter } from '../../../../service/factors.js';
import { createTotpFactor } from '../../../../service/totp-factors.js';
import { respondCreated, twilioErrorResponses } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { twilioRoute } from '../route-options.js';
import { FORM } from '../schemas.js';
import { toNewFactor } from './presenters.js';
import { configInput } from './request-config.js';
import { CreateFactorBody, EntityParams, NewFactorSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Entities/:Identity/Factors', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-create-factor', summary: 'Make a totp Factor (and its Entity if new): its Base32 seed and otpauth:// URI are answered here only',
    consumes: FORM, params: EntityParams, body: CreateFactorBody,
    response: { 201: NewFactorSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const body = request.body;
    const result = body.FactorType === 'totp'
      ? await createTotpFactor(ctx, request.principal, request.params.ServiceSid, request.params.Identity, {
        friendlyName: body.FriendlyName, config: configInput(body),
        ...(body['Binding.Secret'] !== undefined ? { secret: body['Binding.Secret'] } : {}), ...(body.Metadata !== undefined ? { metadata: body.Metadata } : {}),
      })
      : invalidParameter('FactorType', 'must be totp here (push is not offered; passkeys factors are made through /Passkeys/Factors)');
    return respondCreated(reply, result, (made) => toNewFactor(request, made, made.binding));
  });
};
export default register;
