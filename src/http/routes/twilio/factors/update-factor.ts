import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { updateTotpFactor } from '../../../../service/totp-factors.js';
import { respond, twilioErrorResponses } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { twilioRoute } from '../route-options.js';
import { FORM } from '../schemas.js';
import { toFactor } from './presenters.js';
import { configInput } from './request-config.js';
import { FactorParams, FactorSchema, UpdateFactorBody } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/Services/:ServiceSid/Entities/:Identity/Factors/:Sid', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-update-factor', summary: 'Verify a totp Factor with a code (AuthPayload; a wrong one leaves it unverified, 429 60310 after five), or rename or reconfigure it',
    consumes: FORM, params: FactorParams, body: UpdateFactorBody,
    response: { 200: FactorSchema, ...twilioErrorResponses(400, 401, 403, 404, 429) },
  }), async (request, reply) => {
    const { ServiceSid, Identity, Sid } = request.params;
    const body = request.body;
    const result = await updateTotpFactor(ctx, request.principal, ServiceSid, Identity, Sid, {
      config: configInput(body),
      ...(body.AuthPayload !== undefined ? { authPayload: body.AuthPayload } : {}),
      ...(body.FriendlyName !== undefined ? { friendlyName: body.FriendlyName } : {}),
      ...(body.Metadata !== undefined ? { metadata: body.Metadata } : {}),
    });
    return respond(reply, result, (found) => toFactor(request, found));
  });
};
export default register;
