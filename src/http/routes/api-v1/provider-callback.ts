import { Type } from 'typebox';
import { PROVIDER_SCHEMES, type CallbackRequest } from '../../../delivery/providers/provider-callback.js';
import { errorResponses, sendFailure } from '../../error-envelope.js';
import type { RegisterRoute } from '../../route-types.js';

/**
 * Delivery-status callbacks of the HTTP providers. No API key: each provider authenticates its
 * own callbacks (a signature, or a shared token in the URL), checked against every configured
 * transport of that provider. Unauthenticated or malformed callbacks are refused and logged.
 */
const register: RegisterRoute = (app, { ctx, callbacks, receipts }) => {
  app.register(async (scoped) => {
    // Twilio and Vonage post forms; only this route accepts them.
    scoped.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    // Meta and Telegram sign the body's bytes: it is kept as received beside its parsed form.
    const rawBodies = new WeakMap<object, string>();
    scoped.removeContentTypeParser('application/json');
    scoped.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = String(body);
      rawBodies.set(request, text);
      try {
        done(null, text.trim() === '' ? {} : JSON.parse(text));
      } catch {
        done(Object.assign(new Error('the body is not valid JSON'), { statusCode: 400 }), undefined);
      }
    });
    scoped.route({
      method: ['GET', 'POST'],
      url: '/api/v1/callbacks/:provider',
      schema: {
        operationId: 'provider-callback', tags: ['Operations'],
        summary: 'Delivery-status callbacks of Twilio, Vonage, Infobip, WhatsApp (Meta) and the Telegram Gateway (authenticated by the provider\'s signature or token)',
        params: Type.Object({ provider: Type.String({ enum: [...PROVIDER_SCHEMES] }) }),
        response: {
          // Declared by media type: the handshake's challenge goes back as the text it came as.
          200: {
            description: 'Accepted: `OK`; or, to Meta\'s subscription handshake (GET with hub.mode=subscribe), the hub.challenge, echoed.',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...errorResponses(400, 401, 404),
        },
      },
      handler: async (request, reply) => {
        const { provider } = request.params as { provider: string };
        const candidates = callbacks.filter((c) => c.provider === provider);
        if (candidates.length === 0) return sendFailure(reply, { name: 'CALLBACK_TRANSPORT_UNKNOWN', text: `No ${provider} transport is configured` });
        const rawBody = rawBodies.get(request);
        const callbackRequest: CallbackRequest = {
          url: `${request.protocol}://${request.host}${request.url}`,
          headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(',') : v])),
          query: request.query as Record<string, string>,
          body: request.body,
          ...(rawBody !== undefined && { rawBody }),
          receivedAt: ctx.clock(),
        };
        if (request.method === 'GET') {
          const challenge = candidates.map((c) => c.handshake?.(callbackRequest)).find((answer) => answer !== undefined);
          if (challenge !== undefined) return reply.code(200).type('text/plain; charset=utf-8').send(challenge);
        }
        const callback = candidates.find((c) => c.verify(callbackRequest));
        if (!callback) {
          request.log.warn({ provider }, 'provider callback refused: not authenticated');
          return sendFailure(reply, { name: 'CALLBACK_UNAUTHENTICATED', text: 'Callback not authenticated' });
        }
        const parsed = callback.parse(callbackRequest, ctx.clock());
        if (!parsed.ok) {
          request.log.warn({ provider, error: parsed.error }, 'provider callback refused: malformed');
          return sendFailure(reply, { name: 'CALLBACK_MALFORMED', text: parsed.error });
        }
        // Applied before the answer when its message is known; otherwise tried again later (a callback
        // can overtake the worker's record of the provider's id), so the provider is not asked to repeat it.
        for (const receipt of parsed.receipts) await receipts.receive(receipt);
        // 200, not 204: the Telegram Gateway and Meta take any other status as a failed delivery and
        // post the report again (Telegram up to ten times, then drops it); the others accept any 2xx.
        return reply.code(200).type('text/plain; charset=utf-8').send('OK');
      },
    });
  });
};
export default register;
