import { SCOPE_PIN_SEND } from '../../../../service/api-keys.js';
import { challengeStatusAt } from '../../../../domain/factors.js';
import { listChallenges } from '../../../../service/factors.js';
import { respond, twilioErrorResponses } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { twilioRoute } from '../route-options.js';
import { storePage, storeWindow, toChallenge } from './presenters.js';
import { ChallengeListQuery, ChallengePageSchema, EntityParams } from './schemas.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/v2/Services/:ServiceSid/Entities/:Identity/Challenges', twilioRoute(SCOPE_PIN_SEND, {
    operationId: 'twilio-list-challenges', summary: 'List an Entity\'s Challenges by factor and status, oldest first (Order=desc: newest), in pages',
    params: EntityParams, querystring: ChallengeListQuery,
    response: { 200: ChallengePageSchema, ...twilioErrorResponses(400, 401, 403, 404) },
  }), async (request, reply) => {
    const { ServiceSid, Identity } = request.params;
    const { FactorSid, Status, Order } = request.query;
    const { offset, limit } = storeWindow(request);
    const filter = { order: Order ?? 'asc', ...(FactorSid !== undefined ? { factorSid: FactorSid } : {}), ...(Status !== undefined ? { status: Status } : {}) } as const;
    return respond(reply, await listChallenges(ctx, request.principal, ServiceSid, Identity, filter, offset, limit), ({ service, entity, challenges, now }) => (
      storePage(request, `/Services/${ServiceSid}/Entities/${encodeURIComponent(Identity)}/Challenges`, 'challenges', challenges,
        (challenge) => toChallenge(request, { service, entity, challenge, status: challengeStatusAt(challenge.status, challenge.expiresAt, now) }))
    ));
  });
};
export default register;
