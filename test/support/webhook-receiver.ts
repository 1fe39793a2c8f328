// A receiver of webhooks on 127.0.0.1 for the tests of the event worker's deliveries: it answers 200
// to every POST and keeps what came (path, headers, body) for the test to check.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest { path: string; headers: http.IncomingHttpHeaders; body: string }

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`. */
  base: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString('utf8'); });
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received,
    close: () => new Promise((resolve) => { server.close(() => resolve()); }),
  };
}
