// A local HTTP server standing in for an SMS provider: it records every request and answers what
// the test tells it to (a status and body, or nothing at all, to play a provider that hangs).
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Reply = { status: number; body?: unknown; contentType?: string; headers?: Record<string, string> } | 'hang';

export class FakeProvider {
  readonly requests: RecordedRequest[] = [];
  /** What the next requests get; tests set it before sending. */
  reply: Reply | ((request: RecordedRequest) => Reply) = { status: 200, body: {} };
  private server: Server | undefined;
  private readonly hanging: ServerResponse[] = [];
  baseUrl = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const recorded: RecordedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(recorded);
        const reply = typeof this.reply === 'function' ? this.reply(recorded) : this.reply;
        if (reply === 'hang') {
          this.hanging.push(res);
          return;
        }
        res.statusCode = reply.status;
        for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
        if (reply.body === undefined) {
          res.end();
        } else if (typeof reply.body === 'string') {
          res.setHeader('content-type', reply.contentType ?? 'text/plain');
          res.end(reply.body);
        } else {
          res.setHeader('content-type', reply.contentType ?? 'application/json');
          res.end(JSON.stringify(reply.body));
        }
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  reset(): void {
    this.requests.length = 0;
    this.reply = { status: 200, body: {} };
  }

  last(): RecordedRequest {
    const request = this.requests.at(-1);
    if (request === undefined) throw new Error('the fake provider received no request');
    return request;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** A port on which nothing listens (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export function formFields(body: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(body));
}
