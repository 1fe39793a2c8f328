import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { addTestNumber } from '../../../service/test-numbers.js';
import { errorResponses, respond } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { CreateTestNumberRequestSchema, TestNumberSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.post('/api/v1/test-numbers', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'create-test-number', tags: ['Test numbers'],
      summary: 'Add a test number: sends to it are recorded but deliver nothing, and its fixed code verifies (app-store review, end-to-end tests)',
      body: CreateTestNumberRequestSchema,
      response: { 200: TestNumberSchema, ...errorResponses(400, 401, 403, 409) },
    },
  }, async (request, reply) => respond(reply, await addTestNumber(ctx, request.principal, request.body), (entry) => entry));
};
export default register;
