// The delivery receiver: the endpoint of twofa's webhook+http:// transport in the send scenarios, in
// its own process (as a provider's API or an in-house SMS gateway would be). It reads each message
// and answers 200 at once, keeping connections alive as any HTTP server does; what it costs is
// counted on the same 2 cores, not in the server's CPU per request.
//
// BENCH_RECEIVER_CODES=1: it also keeps the code of each message by its number, and GET /codes hands
// them over (and forgets them), so that a bench can verify PINs as their users would.
import http from 'node:http';

const port = Number(process.env['BENCH_PORT'] ?? '0');
const keepCodes = process.env['BENCH_RECEIVER_CODES'] === '1';
let received = 0;
let codes: Record<string, string> = {};
const server = http.createServer((request, response) => {
  if (request.method === 'GET') {
    const body = request.url === '/codes' ? codes : { received };
    if (request.url === '/codes') codes = {};
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => { if (keepCodes) chunks.push(chunk); });
  request.on('end', () => {
    received += 1;
    if (keepCodes) {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to?: string; text?: string };
      const code = /\d{4,10}/.exec(message.text ?? '')?.[0];
      if (message.to !== undefined && code !== undefined) codes[message.to.replace(/\D/g, '')] = code;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
