import { Type } from 'typebox';
import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { errorResponses } from '../../error-envelope.js';
import { definedFields, numberOrUndefined } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { InboxMessageSchema, InboxQuerySchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { inbox }) => {
  // The log:// transport's inbox stands for the recipients' phones and mailboxes during development;
  // it lives in this node's memory only.
  app.get('/api/v1/inbox', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'list-inbox', tags: ['Inbox'], summary: 'Messages delivered by the log:// transport, newest first',
      querystring: InboxQuerySchema,
      response: { 200: Type.Object({ messages: Type.Array(InboxMessageSchema) }, { description: 'Messages the log:// transport delivered for the account on this node, newest first.' }), ...errorResponses(400, 401, 403) },
    },
  }, async (request) => {
    const { to, limit } = request.query;
    const messages = inbox.list(request.principal.accountId, definedFields({ to, limit: numberOrUndefined(limit) }));
    return { messages };
  });
};
export default register;
