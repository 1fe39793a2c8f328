import { Type } from 'typebox';
import { recordDeliveryReceipt } from '../../../service/delivery-tracking.js';
import { errorResponses, sendFailure } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';

const PROVIDERS = ['twilio', 'vonage', 'infobip'];

/**
 * Delivery-status callbacks of the HTTP SMS providers. No API key: each provider authenticates its
 * own callbacks (a signature, or a shared token in the URL), checked against every configured
 * transport of that provider. Unauthenticated or malformed callbacks are refused and logged.
 */
const register: RegisterRoute = (app, { ctx, callbacks }) => {
  app.register(async (scoped) => {
    // Twilio and Vonage post forms; only this route accepts them.
    scoped.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    scoped.route({
      method: ['GET', 'POST'],
      url: '/api/v1/callbacks/:provider',
      schema: {
        operationId: 'provider-callback', tags: ['Operations'],
        summary: 'Delivery-status callbacks of Twilio, Vonage and Infobip (authenticated by the provider\'s signature or token)',
        params: Type.Object({ provider: Type.String({ enum: PROVIDERS }) }),
        response: { 204: Type.Null({ description: 'Accepted.' }), ...errorResponses(400, 401, 404) },
      },
      handler: async (request, reply) => {
        const { provider } = request.params as { provider: string };
        const candidates = callbacks.filter((c) => c.provider === provider);
        if (candidates.length === 0) return sendFailure(reply, { code: 'NOT_FOUND', text: `No ${provider} transport is configured` });
        const callbackRequest = {
          url: `${request.protocol}://${request.host}${request.url}`,
          headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(',') : v])),
          query: request.query as Record<string, string>,
          body: request.body,
        };
        const callback = candidates.find((c) => c.verify(callbackRequest));
        if (!callback) {
          request.log.warn({ provider }, 'provider callback refused: not authenticated');
          return sendFailure(reply, { code: 'UNAUTHORIZED', text: 'Callback not authenticated' });
        }
        const parsed = callback.parse(callbackRequest, ctx.clock());
        if (!parsed.ok) {
          request.log.warn({ provider, error: parsed.error }, 'provider callback refused: malformed');
          return sendFailure(reply, { code: 'BAD_REQUEST', text: parsed.error });
        }
        for (const receipt of parsed.receipts) await recordDeliveryReceipt(ctx, receipt);
        return reply.code(204).send(null);
      },
    });
  });
};
export default register;
