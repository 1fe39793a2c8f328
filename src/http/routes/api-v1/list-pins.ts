import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listPins } from '../../../service/console-pins.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { PinListQuerySchema, PinListResponseSchema } from '../../schemas/api-v1.js';
import { toPinListResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/pins', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'list-pins', tags: ['PINs'], summary: 'Search the account\'s PINs, newest first, one page at a time (never the PIN)',
      querystring: PinListQuerySchema,
      response: { 200: PinListResponseSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const q = request.query;
    return respond(reply, await listPins(ctx, request.principal, {
      ...(q.to !== undefined ? { to: q.to } : {}),
      ...(q.applicationId !== undefined ? { applicationId: q.applicationId } : {}),
      ...(q.channel !== undefined ? { channel: q.channel } : {}),
      ...(q.status !== undefined ? { status: q.status } : {}),
      ...(q.since !== undefined ? { since: Number(q.since) } : {}),
      ...(q.until !== undefined ? { until: Number(q.until) } : {}),
      ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
      ...(q.limit !== undefined ? { limit: Number(q.limit) } : {}),
    }), toPinListResponse);
  });
};
export default register;
