import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { updateTotpChallenge } from '../../../../service/totp-factors.js';
import { errorResponses, respond } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { ChallengeParamsSchema, ChallengeSchema, CodeRequestSchema } from '../../../schemas/api-v1-factors.js';
import { inApplication, serviceOf, toChallenge } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/applications/:appId/entities/:identity/challenges/:challengeSid', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'answer-challenge', tags: ['Factors'],
      summary: 'Answer a pending challenge with a code: approved, or pending when wrong; the fifth wrong code denies it',
      params: ChallengeParamsSchema, body: CodeRequestSchema,
      response: { 200: ChallengeSchema, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request, reply) => {
    const { appId, identity, challengeSid } = request.params;
    const result = await updateTotpChallenge(ctx, request.principal, serviceOf(appId), identity, challengeSid, { authPayload: request.body.code });
    return respond(reply, inApplication(appId, result), toChallenge);
  });
};
export default register;
