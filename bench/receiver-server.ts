// The delivery receiver: the endpoint of twofa's webhook+http:// transport in the send scenarios, in
// its own process (as a provider's API or an in-house SMS gateway would be). It reads each message
// and answers 200 at once, keeping connections alive as any HTTP server does; what it costs is
// counted on the same 2 cores, not in the server's CPU per request.
import http from 'node:http';

const port = Number(process.env['BENCH_PORT'] ?? '0');
let received = 0;
const server = http.createServer((request, response) => {
  if (request.method === 'GET') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received }));
    return;
  }
  request.on('data', () => undefined);
  request.on('end', () => {
    received += 1;
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
