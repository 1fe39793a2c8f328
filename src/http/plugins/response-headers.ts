// Headers every answer carries, whatever its route or dialect: the request id (the client's
// X-Request-Id when it is a plausible one, see server-options.ts), so a client can quote it and an
// operator find the log line; and `Connection: close` while the node shuts down. A keep-alive
// connection busy when the server closed would otherwise stay open, and the shutdown wait with it,
// until the client hung up or the keep-alive timeout: a request still in flight gets its answer and
// then the connection closes.
import type { App } from '../route-types.js';

export function registerResponseHeaders(app: App, options: { isReady: () => boolean }): void {
  const { isReady } = options;
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (!isReady()) reply.header('connection', 'close');
  });
}
