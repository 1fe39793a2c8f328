// In-process requests for the attack suite: like the harness's request() (every answer checked
// against /openapi.json), plus the client address (inject's remoteAddress), counting of 5xx, and the
// raw answer text for byte-for-byte comparisons and secret scans.
import type { Harness } from '../../support/harness.js';
import { assertResponseConforms } from '../../openapi/response-conformance.js';
import type { Results } from './results.js';

export interface RawAnswer {
  status: number;
  text: string;
  body: any;
  headers: Record<string, unknown>;
  ms: number;
}

export interface InjectOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  remoteAddress?: string;
}

export function injector(h: Harness, results?: Results, responses?: string[]) {
  return async function inject(method: string, url: string, options: InjectOptions = {}): Promise<RawAnswer> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const key = options.key === undefined ? h.keys.a : options.key;
    if (key !== null) headers['authorization'] ??= `App ${key}`;
    let payload = options.rawBody;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const started = performance.now();
    const response = await h.node.app.inject({
      method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}),
      ...(options.remoteAddress !== undefined ? { remoteAddress: options.remoteAddress } : {}),
    });
    const ms = performance.now() - started;
    results?.add('requests');
    if (response.statusCode >= 500) results?.add('fiveXX');
    responses?.push(`${JSON.stringify(response.headers)}\n${response.body}`);
    await assertResponseConforms(h.node.app, { method, url, status: response.statusCode, headers: response.headers, body: response.body });
    let body: unknown = response.body;
    try { body = response.body === '' ? undefined : JSON.parse(response.body); } catch { /* not JSON */ }
    return { status: response.statusCode, text: response.body, body, headers: response.headers as Record<string, unknown>, ms };
  };
}

/** Delivers what is queued and returns every message the log:// inbox holds for a PIN (all accounts). */
export async function inboxPin(h: Harness, pinId: string): Promise<string> {
  await h.node.worker.drain();
  const { authenticate } = await import('../../../src/service/api-keys.js');
  for (const key of [h.keys.a, h.keys.b]) {
    const principal = await authenticate(h.node.store, `App ${key}`);
    if (!principal) continue;
    const message = h.node.inbox.list(principal.accountId, { limit: 100_000 }).find((m) => m.pinId === pinId);
    const pin = message && /code is ([0-9A-Z]+)/.exec(message.text ?? '')?.[1];
    if (pin) return pin;
  }
  throw new Error(`no delivered message for PIN ${pinId}`);
}
