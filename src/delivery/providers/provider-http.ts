// One POST to a provider's REST API and the classification every HTTP provider shares with the
// webhook transport: 2xx accepted; 408, 429, 5xx, a network failure or a timeout worth another
// try; any other 4xx (and a redirect) a refusal that repeating will not change. A 429 or 503 is the
// provider asking us to slow down: the transport's pacer pauses and sends the message again.
import { formatMicros, MICROS_PER_UNIT } from '../../domain/money.js';
import type { Price } from '../../domain/prices.js';
import type { DeliveryResult } from '../transport.js';
import { describePostFailure, isThrottlingStatus, postOnce } from '../http-post.js';
import { throttledFor } from '../transport-pacer.js';

export type ProviderAnswer =
  | { kind: 'answered'; status: number; body: string; retryAfter?: string | undefined }
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
  const answer = await postOnce(new URL(request.url), {
    headers: { accept: 'application/json', ...request.headers },
    body: request.body,
    timeoutMs: request.timeoutMs,
    bodyMaxBytes: BODY_MAX_BYTES,
  });
  // No complete answer (a timeout, a refused or broken connection, a body cut short): the provider
  // may have accepted the message, yet without its id we cannot tell; worth another try.
  if (answer.kind === 'failed') return { kind: 'unreachable', error: describePostFailure(provider, answer, request.timeoutMs) };
  return answer;
}

/** Whether an HTTP status is worth retrying: 408 and 429 mean "not now", 5xx "not working now". */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429 || status < 200;
}

/**
 * The result for a non-2xx answer. `detail` is the provider's reason, already redacted. A 429 or 503
 * is `throttled`, with the wait its Retry-After asks for; `throttled` forces it for a provider's own
 * "slow down" code that comes with another status.
 */
export function httpFailure(provider: string, answer: { status: number; retryAfter?: string | undefined }, detail: string | undefined, retryable = isRetryableStatus(answer.status), throttled = isThrottlingStatus(answer.status)): DeliveryResult {
  const { status } = answer;
  if (status >= 300 && status < 400) {
    return { ok: false, retryable: false, error: `${provider} answered with a redirect (HTTP ${status}); check the base URL in the DSN` };
  }
  const suffix = detail === undefined || detail === '' ? '' : `: ${detail}`;
  const error = `${provider} answered HTTP ${status}${suffix}`;
  return throttled ? { ok: false, retryable: true, error, throttled: throttledFor(answer.retryAfter) } : { ok: false, retryable, error };
}

/** JSON.parse that answers undefined instead of throwing: provider bodies are not trusted. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A price a provider's answer or receipt reports, as decimal text or a JSON number (Telegram's
 * request_cost), made a Price (domain/prices.ts) of at most six decimals: `debit` for Twilio's,
 * written negative. Undefined when absent or not a number.
 */
export function reportedPrice(value: unknown, currency: string | undefined, debit = false): Price | undefined {
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  if (!Number.isFinite(number) || currency === undefined || !/^[A-Za-z]{3}$/.test(currency)) return undefined;
  const amount = debit ? Math.abs(number) : number;
  if (amount < 0) return undefined;
  // The provider's float becomes micro-units once, here; nothing downstream sees a float.
  return { amount: formatMicros(Math.round(amount * MICROS_PER_UNIT)), currency: currency.toUpperCase() };
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
