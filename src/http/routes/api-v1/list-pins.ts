import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listPins } from '../../../service/console-pins.js';
import { errorResponses, respond } from '../../error-envelope.js';
import { definedFields, numberOrUndefined } from '../../request-fields.js';
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
    return respond(reply, await listPins(ctx, request.principal, definedFields({
      to: q.to, applicationId: q.applicationId, channel: q.channel, status: q.status,
      since: numberOrUndefined(q.since), until: numberOrUndefined(q.until), cursor: q.cursor, limit: numberOrUndefined(q.limit),
    })), toPinListResponse);
  });
};
export default register;
