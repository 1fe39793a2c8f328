// The SMS provider stand-in of the delivery scenarios: the endpoint of twofa's webhook+http://
// transport, in its own process, answering each message after a configurable latency (a real SMS API
// answers in 100 to 300 ms). It notes when each message arrived (Date.now(), the clock the server's
// acceptance times use too), so that the time from the API's answer to the provider's receipt is
// measured where the provider sees it, its own latency not included; and it counts the requests it
// holds at once.
//
//   POST /reset {"latencyMs": 200}   forget what arrived, answer later messages after this latency
//   GET  /receipts                   {"maxInFlight": n, "receipts": [[pinId, at], ...]}
//   POST anything else               a message: noted, answered 200 after the latency
import http from 'node:http';

const port = Number(process.env['BENCH_PORT'] ?? '0');
let latencyMs = 0;
let receipts: [string, number][] = [];
let inFlight = 0;
let maxInFlight = 0;

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

const server = http.createServer((request, response) => {
  if (request.method === 'GET') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ maxInFlight, receipts }));
    return;
  }
  const at = Date.now();
  inFlight += 1;
  maxInFlight = Math.max(maxInFlight, inFlight);
  void readBody(request).then((body) => {
    if (request.url === '/reset') {
      inFlight -= 1;
      latencyMs = Number((JSON.parse(body) as { latencyMs?: number }).latencyMs ?? 0);
      receipts = [];
      maxInFlight = 0;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    receipts.push([(JSON.parse(body) as { pinId: string }).pinId, at]);
    const answer = () => {
      inFlight -= 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    };
    if (latencyMs > 0) setTimeout(answer, latencyMs);
    else answer();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
