// An HTTP provider stand-in for the delivery tests: the endpoint of a webhook+http:// DSN on
// 127.0.0.1 that answers each message after a delay, as the test decides (a status and headers: a 429
// with Retry-After...), and counts what it holds at once and when each request arrived, so that a
// test can check that no window or rate was exceeded.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const SECRET = 'whsec_cGFjaW5nLXRlc3Qtd2ViaG9vay1zZWNyZXQ=';

export interface ProviderAnswer {
  status: number;
  headers?: Record<string, string>;
}

/** An HTTP provider stand-in: answers after `delayMs`, as `answer` decides, and counts what it holds at once. */
export class CountingProvider {
  inFlight = 0;
  maxInFlight = 0;
  /** performance.now() of every request's arrival, and its answer's status. */
  readonly arrivals: { at: number; status: number }[] = [];
  /** pinIds of the messages it answered 2xx. */
  readonly accepted: string[] = [];
  answer: (index: number) => ProviderAnswer = () => ({ status: 200 });
  private server: Server | undefined;
  url = '';

  constructor(private readonly delayMs: number) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      const at = performance.now();
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const { status, headers = {} } = this.answer(this.arrivals.length);
        this.arrivals.push({ at, status });
        setTimeout(() => {
          this.inFlight -= 1;
          if (status >= 200 && status < 300) this.accepted.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { pinId: string }).pinId);
          res.writeHead(status, { 'content-type': 'application/json', ...headers }).end('{}');
        }, this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
    return this;
  }

  dsn(query: string): string {
    return `webhook+${this.url}/sms?secret=${SECRET}${query === '' ? '' : `&${query}`}`;
  }

  /** Most requests that arrived within any `spanMs`. */
  mostWithin(spanMs: number): number {
    const times = this.arrivals.map((a) => a.at).sort((x, y) => x - y);
    let most = 0;
    for (let first = 0, last = 0; last < times.length; last++) {
      while ((times[last] as number) - (times[first] as number) >= spanMs) first++;
      most = Math.max(most, last - first + 1);
    }
    return most;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
