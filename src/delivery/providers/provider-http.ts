// One POST to a provider's REST API and the classification every HTTP provider shares with the
// webhook transport: 2xx accepted; 408, 429, 5xx, a network failure or a timeout worth another
// try; any other 4xx (and a redirect) a refusal that repeating will not change.
import type { DeliveryResult } from '../transport.js';

export type ProviderAnswer =
  | { kind: 'answered'; status: number; body: string }
  | { kind: 'unreachable'; error: string };

export interface ProviderRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

// Error bodies are read for their code and reason only; a provider (or something pretending to
// be one) that streams without end must not hold the worker.
const BODY_MAX_BYTES = 256 * 1024;

export async function postToProvider(provider: string, request: ProviderRequest): Promise<ProviderAnswer> {
  const signal = AbortSignal.timeout(request.timeoutMs);
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: 'POST',
      headers: { accept: 'application/json', ...request.headers },
      body: request.body,
      // A redirect would send the credentials and the PIN to a URL the operator never configured.
      redirect: 'manual',
      signal,
    });
  } catch (err) {
    return { kind: 'unreachable', error: describeFetchError(provider, err, request.timeoutMs) };
  }
  try {
    return { kind: 'answered', status: response.status, body: await readLimited(response) };
  } catch (err) {
    // The status line arrived but the body did not: the provider may have accepted the message,
    // yet without its id we cannot tell; like a timeout, this is worth another try.
    return { kind: 'unreachable', error: describeFetchError(provider, err, request.timeoutMs) };
  }
}

async function readLimited(response: Response): Promise<string> {
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > BODY_MAX_BYTES) {
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Whether an HTTP status is worth retrying: 408 and 429 mean "not now", 5xx "not working now". */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429 || status < 200;
}

/**
 * The result for a non-2xx answer. `detail` is the provider's reason, already redacted.
 */
export function httpFailure(provider: string, status: number, detail: string | undefined, retryable = isRetryableStatus(status)): DeliveryResult {
  if (status >= 300 && status < 400) {
    return { ok: false, retryable: false, error: `${provider} answered with a redirect (HTTP ${status}); check the base URL in the DSN` };
  }
  const suffix = detail === undefined || detail === '' ? '' : `: ${detail}`;
  return { ok: false, retryable, error: `${provider} answered HTTP ${status}${suffix}` };
}

/** JSON.parse that answers undefined instead of throwing: provider bodies are not trusted. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringField(record: Record<string, unknown>, name: string): string | undefined {
  const value = record[name];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

// undici reports connection problems as TypeError("fetch failed") with the real reason in `cause`.
export function describeFetchError(provider: string, err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `${provider} did not answer within ${timeoutMs / 1000} s`;
  }
  const cause = err instanceof Error ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause !== undefined && typeof cause.code === 'string') return `${provider} request failed: ${cause.code}`;
  if (cause !== undefined && typeof cause.message === 'string') return `${provider} request failed: ${cause.message}`;
  return `${provider} request failed: ${err instanceof Error ? err.message : String(err)}`;
}
