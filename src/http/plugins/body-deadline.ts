// A deadline for the whole request body. Node's requestTimeout stops watching a request once its
// headers are in, so a body trickled a byte at a time (slowloris) would hold its connection for ever:
// the whole body must arrive within the request timeout too, or the connection is closed with a 408.
// A request whose body is already in (most of them) costs one property read.
import type { App } from '../route-types.js';

export function registerBodyDeadline(app: App, options: { timeoutMs: number }): void {
  const { timeoutMs } = options;
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.complete) return done();
    const timer = setTimeout(() => {
      // inject() requests have no real socket: only a network client can be slow.
      if (raw.complete || typeof raw.socket?.end !== 'function' || raw.socket.destroyed) return;
      request.log.warn({ timeoutMs }, 'request body not received in time; connection closed');
      raw.socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      setTimeout(() => raw.socket.destroy(), 1000).unref();
    }, timeoutMs);
    timer.unref();
    raw.once('close', () => clearTimeout(timer));
    raw.once('end', () => clearTimeout(timer));
    reply.raw.once('finish', () => clearTimeout(timer));
    done();
  });
}
