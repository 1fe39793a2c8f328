import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { authToken } from '../../../service/twilio-webhooks.js';
import { errorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { TwilioAuthTokenSchema } from '../../schemas/api-v1.js';
import { toTwilioAuthTokenResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  // Shown whenever asked, as Twilio's console shows it: whoever manages the account may verify its webhooks' signatures.
  app.get('/api/v1/twilio/auth-token', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'get-twilio-auth-token', tags: ['Twilio Verify'], summary: 'The account\'s Twilio Auth Token, which signs its Verify webhook events (made at first use)',
      response: { 200: TwilioAuthTokenSchema, ...errorResponses(401, 403) },
    },
  }, async (request) => toTwilioAuthTokenResponse(request.principal, await authToken(ctx, request.principal.accountId)));
};
export default register;
