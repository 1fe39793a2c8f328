import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { findChallenge } from '../../../../service/factors.js';
import { errorResponses, respond } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { ChallengeParamsSchema, ChallengeSchema } from '../../../schemas/api-v1-factors.js';
import { inApplication, serviceOf, toChallenge } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/applications/:appId/entities/:identity/challenges/:challengeSid', {
    config: { scope: SCOPE_PIN_SEND },
    schema: {
      operationId: 'get-challenge', tags: ['Factors'], summary: 'A challenge and its status (pending, approved, denied, expired)',
      params: ChallengeParamsSchema,
      response: { 200: ChallengeSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { appId, identity, challengeSid } = request.params;
    return respond(reply, inApplication(appId, await findChallenge(ctx, request.principal, serviceOf(appId), identity, challengeSid)), toChallenge);
  });
};
export default register;
