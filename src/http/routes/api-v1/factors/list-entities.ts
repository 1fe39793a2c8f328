import { SCOPE_MANAGE } from '../../../../service/api-keys.js';
import { listEntities } from '../../../../service/factors.js';
import { errorResponses, respond } from '../../../error-envelope.js';
import type { RegisterRoute } from '../../../route-types.js';
import { ApplicationParamsSchema, EntityListQuerySchema, EntityListSchema } from '../../../schemas/api-v1-factors.js';
import { inApplication, serviceOf, toEntity } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/applications/:appId/entities', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'list-entities', tags: ['Factors'], summary: 'The application\'s entities (users with factors), oldest first',
      params: ApplicationParamsSchema, querystring: EntityListQuerySchema,
      response: { 200: EntityListSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { appId } = request.params;
    const limit = Math.min(1000, Math.max(1, Number(request.query.limit ?? 50)));
    const result = await listEntities(ctx, request.principal, serviceOf(appId), Number(request.query.offset ?? 0), limit);
    return respond(reply, inApplication(appId, result), ({ service, entities }) => ({ entities: entities.map((entity) => toEntity({ service, entity })) }));
  });
};
export default register;
