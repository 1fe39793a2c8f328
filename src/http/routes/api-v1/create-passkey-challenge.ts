import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { applicationPasskeyScope, createPasskeyChallenge } from '../../../service/passkeys.js';
import { errorResponses, respondCreated, sendFailure } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';
import { NewPasskeyChallengeBodySchema, PasskeyChallengeSchema } from '../../schemas/passkeys.js';
import { toPasskeyChallenge } from './passkey-presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/applications/:appId/passkey-challenges', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'create-passkey-challenge', tags: ['Passkeys'],
      summary: 'Ask for a passkey (a user\'s, one factor, or any discoverable one): a pending challenge and the options for navigator.credentials.get()',
      params: AppIdParamsSchema, body: NewPasskeyChallengeBodySchema, response: { 201: PasskeyChallengeSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const scope = await applicationPasskeyScope(ctx, request.principal, request.params.appId);
    if (!scope.ok) return sendFailure(reply, scope.failure);
    const result = await createPasskeyChallenge(ctx, request.principal, scope.value, request.body);
    return respondCreated(reply, result, (made) => toPasskeyChallenge(made.challenge, made.entity, ctx.clock(), made.options));
  });
};
export default register;
