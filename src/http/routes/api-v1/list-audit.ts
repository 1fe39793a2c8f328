import { SCOPE_MANAGE } from '../../../service/api-keys.js';
import { listAudit } from '../../../service/audit-log.js';
import { errorResponses } from '../../error-envelope.js';
import { definedFields, numberOrUndefined } from '../../request-fields.js';
import type { RegisterRoute } from '../../route-types.js';
import { AuditPageSchema, AuditQuerySchema } from '../../schemas/api-v1.js';
import { toAuditPageResponse } from './presenters.js';

const register: RegisterRoute = (app, { ctx }) => {
  app.get('/api/v1/audit', {
    config: { scope: SCOPE_MANAGE },
    schema: {
      operationId: 'list-audit', tags: ['Audit'],
      summary: 'The account\'s audit log (sends, delivery outcomes, verify decisions, configuration changes), oldest first, paged',
      querystring: AuditQuerySchema,
      response: { 200: AuditPageSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request) => {
    const { applicationId, pinId, event, after, limit } = request.query;
    return toAuditPageResponse(await listAudit(ctx, request.principal, definedFields({ applicationId, pinId, event, afterSeq: numberOrUndefined(after) }), limit !== undefined ? Number(limit) : 100));
  });
};
export default register;
