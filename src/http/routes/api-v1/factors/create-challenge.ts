import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { createTotpChallenge } from '../../../../service/totp-factors.js';
import { errorResponses, respond } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { ChallengeSchema, CreateChallengeRequestSchema, EntityParamsSchema } from '../../../schemas/api-v1-factors.js';
import { inApplication, serviceOf, toChallenge } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/applications/:appId/entities/:identity/challenges', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'create-challenge', tags: ['Factors'],
      summary: 'Challenge a user\'s verified TOTP factor; with a code it is answered at once (approved, or pending when wrong)',
      params: EntityParamsSchema, body: CreateChallengeRequestSchema,
      response: { 200: ChallengeSchema, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request, reply) => {
    const { appId, identity } = request.params;
    const { factorSid, code, expiresInSeconds } = request.body;
    const result = await createTotpChallenge(ctx, request.principal, serviceOf(appId), identity, {
      factorSid, ...(code !== undefined ? { authPayload: code } : {}),
      ...(expiresInSeconds !== undefined ? { expirationDate: new Date(ctx.clock() + expiresInSeconds * 1000).toISOString() } : {}),
    });
    return respond(reply, inApplication(appId, result), toChallenge);
  });
};
export default register;
