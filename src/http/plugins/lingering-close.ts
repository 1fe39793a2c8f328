// A refused body (413, a parse error) is answered while the client may still be sending it, and
// Fastify closes such a connection. Closed with the client's data unread, the socket would send a TCP
// reset, on which the client's system may drop the answer before the client reads it: the connection
// lingers instead, discarding what still arrives, until the client hangs up or LINGER_MS pass (nginx's
// lingering_close). Requests whose body was read whole are not touched.
import type { Socket } from 'node:net';
import type { App } from '../route-types.js';

const LINGER_MS = 2000;

/** Delays the close Node scheduled after the answer until the client stops sending. */
function lingerBeforeClosing(socket: Socket): void {
  // Node's server ends the socket and destroys it once the answer is flushed ('finish').
  if (!socket.listeners('finish').includes(socket.destroy)) return;
  socket.removeListener('finish', socket.destroy);
  const close = () => socket.destroy();
  socket.once('end', close);
  setTimeout(close, LINGER_MS).unref();
  socket.resume();
}

export function registerLingeringClose(app: App): void {
  app.addHook('onResponse', (request, _reply, done) => {
    const socket = request.raw.socket as Socket | undefined;
    if (!request.raw.complete && socket && typeof socket.destroy === 'function' && !socket.destroyed) lingerBeforeClosing(socket);
    done();
  });
}
