import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { rotateAuthTokenOnRequest } from '../../../service/twilio-webhooks.js';
import { errorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { TwilioAuthTokenSchema } from '../../schemas/api-v1.js';
import { toTwilioAuthTokenResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/twilio/auth-token', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'rotate-twilio-auth-token', tags: ['Twilio Verify'], summary: 'Replace the account\'s Twilio Auth Token: events are signed with the new one from now on; the old one stays a login for TWOFA_TWILIO_AUTH_TOKEN_GRACE',
      response: { 200: TwilioAuthTokenSchema, ...errorResponses(400, 401, 403, 413, 415) },
    },
  }, async (request) => {
    const token = await rotateAuthTokenOnRequest(ctx, request.principal);
    return toTwilioAuthTokenResponse(request.principal, token);
  });
};
export default register;
