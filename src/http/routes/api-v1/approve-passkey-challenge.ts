import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';
import { applicationPasskeyScope, approvePasskeyChallenge } from '../../../service/passkeys.js';
import { errorResponses, respond, sendFailure } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { AppIdParamsSchema } from '../../schemas/infobip.js';
import { PasskeyChallengeSchema, PasskeyCredentialBodySchema } from '../../schemas/passkeys.js';
import { toPasskeyChallenge } from './passkey-presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/applications/:appId/passkey-challenges/approve', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'approve-passkey-challenge', tags: ['Passkeys'],
      summary: 'Approve a passkey challenge with the assertion navigator.credentials.get() made (the challenge is the one it answers)',
      params: AppIdParamsSchema, body: PasskeyCredentialBodySchema, response: { 200: PasskeyChallengeSchema, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request, reply) => {
    const scope = await applicationPasskeyScope(ctx, request.principal, request.params.appId);
    if (!scope.ok) return sendFailure(reply, scope.failure);
    const result = await approvePasskeyChallenge(ctx, request.principal, scope.value, request.body);
    return respond(reply, result, ({ challenge, entity }) => toPasskeyChallenge(challenge, entity, ctx.clock()));
  });
};
export default register;
