// One POST over node:http(s) with keep-alive agents: the delivery path's HTTP client (the webhook
// transport and the HTTP providers). fetch() costs several times more CPU per request (web streams,
// an AbortSignal and its timer per call); with keep-alive, a message to a provider already connected
// to is one write and one read on an open socket. Redirects are never followed: a 3xx is an answer.
import http from 'node:http';
import https from 'node:https';

export type PostAnswer =
  /** `retryAfter`: the Retry-After header, when the answer carries one (a 429 or 503 says how long to wait). */
  | { kind: 'answered'; status: number; body: string; retryAfter?: string | undefined }
  /** No (complete) answer: `timedOut`, or the connection failed (`code`: ECONNREFUSED...). */
  | { kind: 'failed'; timedOut: boolean; code: string | undefined; message: string };

export interface PostOptions {
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Read the answer's body up to this many bytes (the rest is dropped); 0: drop it unread. */
  bodyMaxBytes: number;
}

// Sockets are reused between messages; idle ones close after a while so that none outlive a
// provider's own keep-alive timeout by much. The agents do not bound the requests per host: each
// transport's pacer does (its max_in_flight), and a cap here would quietly shrink every window to it.
const agents = {
  'http:': new http.Agent({ keepAlive: true, keepAliveMsecs: 1000, maxSockets: Infinity, maxFreeSockets: 256, timeout: 30_000 }),
  'https:': new https.Agent({ keepAlive: true, keepAliveMsecs: 1000, maxSockets: Infinity, maxFreeSockets: 256, timeout: 30_000 }),
};

export function postOnce(url: URL, options: PostOptions): Promise<PostAnswer> {
  return new Promise((resolve) => {
    const secure = url.protocol === 'https:';
    const body = Buffer.from(options.body, 'utf8');
    let settled = false;
    const settle = (answer: PostAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const request = (secure ? https : http).request(url, {
      method: 'POST',
      agent: agents[secure ? 'https:' : 'http:'],
      headers: { ...options.headers, 'content-length': String(body.length) },
    }, (response) => {
      const status = response.statusCode ?? 0;
      const header = response.headers['retry-after'];
      const retryAfter = header === undefined ? {} : { retryAfter: header };
      if (options.bodyMaxBytes === 0) {
        // Answered at the status line; the body is read and dropped so that the socket goes back to the pool.
        response.resume();
        settle({ kind: 'answered', status, body: '', ...retryAfter });
      } else {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          chunks.push(chunk);
          // An answer that streams without end must not hold the worker: what came is enough.
          if (size > options.bodyMaxBytes) {
            settle({ kind: 'answered', status, body: Buffer.concat(chunks).subarray(0, options.bodyMaxBytes).toString('utf8'), ...retryAfter });
            response.destroy();
          }
        });
        response.on('end', () => settle({ kind: 'answered', status, body: Buffer.concat(chunks).toString('utf8'), ...retryAfter }));
      }
      response.on('error', (err: NodeJS.ErrnoException) => settle({ kind: 'failed', timedOut: false, code: err.code, message: err.message }));
    });
    const timer = setTimeout(() => {
      settle({ kind: 'failed', timedOut: true, code: undefined, message: 'timed out' });
      request.destroy();
    }, options.timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) => settle({ kind: 'failed', timedOut: false, code: err.code, message: err.message }));
    request.end(body);
  });
}

/** Whether an HTTP status asks the client to slow down (429 Too Many Requests, 503 Service Unavailable). */
export function isThrottlingStatus(status: number): boolean {
  return status === 429 || status === 503;
}

/** `<who> did not answer within N s` / `<who> request failed: <code or message>`. */
export function describePostFailure(who: string, failure: Extract<PostAnswer, { kind: 'failed' }>, timeoutMs: number): string {
  if (failure.timedOut) return `${who} did not answer within ${timeoutMs / 1000} s`;
  return `${who} request failed: ${failure.code ?? failure.message}`;
}
