import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { removeTestNumber } from '../../../service/test-numbers.js';
import { errorResponses, respondNoContent } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { TestNumberIdParamsSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.delete('/api/v1/test-numbers/:id', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'delete-test-number', tags: ['Test numbers'], summary: 'Remove a test number: later sends to it are delivered like any other; PINs already sent to it stay undelivered',
      params: TestNumberIdParamsSchema,
      response: { 204: { type: 'null', description: 'Removed; no body.' }, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    return respondNoContent(reply, await removeTestNumber(ctx, request.principal, request.params.id));
  });
};
export default register;
