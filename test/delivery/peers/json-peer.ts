// What the provider peers share: an HTTP server on 127.0.0.1 that reads each request whole, hands
// it to the peer's handler and writes the JSON answer; and a signed POST back to twofa (a status
// callback), as the provider's webhook sender would make it.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PeerRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface PeerAnswer {
  status: number;
  body: unknown;
}

/** A provider peer: subclasses answer each request in handle(); every request is recorded first. */
export abstract class JsonPeer {
  readonly requests: PeerRequest[] = [];
  private server: Server | undefined;
  baseUrl = '';

  protected abstract handle(request: PeerRequest): PeerAnswer;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://peer');
        const request: PeerRequest = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.requests.push(request);
        const answer = this.handle(request);
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** POSTs a JSON body to twofa with the given headers; the status twofa answered. */
export async function postCallback(url: string, body: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal: AbortSignal.timeout(10_000) });
  await response.arrayBuffer();
  return response.status;
}

/** The JSON object in a request body, or undefined when it is not one. */
export function jsonObject(body: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(body) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}
