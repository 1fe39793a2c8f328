import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { createVerification } from '../../../service/prelude-verifications.js';
import { preludeErrorResponses, respond } from '../../error-envelope.js';
import { definedFields } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { toCreatedVerification } from './presenters.js';
import { preludeRoute } from './route-options.js';
import { CreateVerificationBody, CreateVerificationSchema } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/v2/verification', preludeRoute(SCOPE_PIN_SEND, {
    operationId: 'prelude-create-verification',
    summary: 'Create a verification, or retry the target\'s live one (the same code sent again): 200 with status success, retry or blocked',
    body: CreateVerificationBody,
    response: { 200: CreateVerificationSchema, ...preludeErrorResponses(400, 401, 403, 404, 413, 415, 429) },
  }), async (request, reply) => {
    const { target, options, metadata, signals } = request.body;
    const result = await createVerification(ctx, request.principal, {
      target,
      ...(options !== undefined ? {
        options: definedFields({
          templateId: options.template_id, variables: options.variables, locale: options.locale, codeSize: options.code_size,
          customCode: options.custom_code, method: options.method, preferredChannel: options.preferred_channel, callbackUrl: options.callback_url,
        }),
      } : {}),
      ...(metadata?.correlation_id !== undefined ? { metadata: { correlationId: metadata.correlation_id } } : {}),
      ...(signals?.ip !== undefined ? { clientAddress: signals.ip } : {}),
      ...(signals !== undefined ? {
        signals: definedFields({
          ip: signals.ip, deviceId: signals.device_id, devicePlatform: signals.device_platform, deviceModel: signals.device_model, osVersion: signals.os_version,
          appVersion: signals.app_version, userAgent: signals.user_agent, isTrustedUser: signals.is_trusted_user, ja4Fingerprint: signals.ja4_fingerprint,
        }),
      } : {}),
    });
    return respond(reply, result, (outcome) => toCreatedVerification(outcome, metadata, request.id));
  });
};
export default register;
