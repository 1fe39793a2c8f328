import { Type } from 'typebox';
import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listTestNumbers } from '../../../service/test-numbers.js';
import { errorResponses } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';
import { TestNumberSchema } from '../../schemas/api-v1.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/test-numbers', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'list-test-numbers', tags: ['Test numbers'], summary: 'List the account\'s test numbers (without their codes)',
      response: { 200: Type.Array(TestNumberSchema, { description: 'The account\'s test numbers, oldest first.' }), ...errorResponses(401, 403) },
    },
  }, async (request) => listTestNumbers(ctx, request.principal));
};
export default register;
