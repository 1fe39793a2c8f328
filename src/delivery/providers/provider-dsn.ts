// Reading the settings of a provider DSN (`twilio://SID:TOKEN@default?from=...`). Every refusal
// names the environment variable and shows a working example, because an operator reads it at
// startup; none of them repeats a credential.
import { parseDuration } from '../../domain/durations.js';

export const PROVIDER_TIMEOUT_MS = 10_000;
const TIMEOUT_MAX_MS = 120_000;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * The query parameters of a DSN, split by hand: URLSearchParams would turn the `+` of a phone
 * number (`from=+15005550006`) into a space. A `+` therefore stays a `+`; `%2B` works as well.
 * Parameters not in `allowed` are refused, so a misspelt setting does not go unnoticed.
 */
export function readDsnParams(variable: string, url: URL, allowed: readonly string[], example: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const part of url.search.replace(/^\?/, '').split('&')) {
    if (part === '') continue;
    const at = part.indexOf('=');
    const name = decode(at === -1 ? part : part.slice(0, at));
    const value = at === -1 ? '' : decode(part.slice(at + 1));
    if (!allowed.includes(name)) {
      throw new Error(`${variable}: unknown DSN parameter "${name}" (supported: ${allowed.join(', ')}), e.g. ${example}`);
    }
    if (params.has(name)) throw new Error(`${variable}: DSN parameter "${name}" is given twice`);
    params.set(name, value);
  }
  return params;
}

/** A parameter's value, with an empty value (`from=`) read as not given. */
export function optionalParam(params: Map<string, string>, name: string): string | undefined {
  const value = params.get(name);
  return value === undefined || value === '' ? undefined : value;
}

/** The user and password of the DSN, percent-decoded (credentials may hold `@`, `:` or `/` encoded). */
export function dsnCredentials(url: URL): { user: string; password: string } {
  return { user: decode(url.username), password: decode(url.password) };
}

export function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `timeout=10s` (any duration the PIN settings accept: 500ms, 10s, 1m) or plain seconds. */
export function readTimeout(variable: string, value: string | undefined, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  const ms = /^[1-9]\d{0,5}$/.test(value) ? Number(value) * 1000 : parseDuration(value);
  if (ms === null || ms <= 0 || ms > TIMEOUT_MAX_MS) {
    throw new Error(`${variable}: DSN parameter timeout must be a duration up to ${TIMEOUT_MAX_MS / 1000}s, e.g. timeout=10s or timeout=500ms`);
  }
  return ms;
}

export function readBoolean(variable: string, name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new Error(`${variable}: DSN parameter ${name} must be true or false`);
}

/**
 * An http(s) URL given as a DSN parameter (a base URL to call, a callback URL to hand the
 * provider). Plain http is allowed (tests, a local relay) but reported to `warn` when the host is
 * not the machine itself, because PINs or their receipts would cross the network unencrypted.
 */
export function readHttpUrl(variable: string, name: string, value: string, warn: (message: string) => void): URL {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new Error(`${variable}: DSN parameter ${name} must be an absolute http(s) URL, e.g. ${name}=https://example.com`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new Error(`${variable}: DSN parameter ${name} must be an http(s) URL`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new Error(`${variable}: DSN parameter ${name} must not carry user:password@`);
  }
  if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname)) warn(`${name} uses plain http: traffic crosses the network unencrypted`);
  return parsed;
}

export function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}

/** `base_url` without a trailing slash, ready for a path to be appended. */
export function baseUrlText(url: URL): string {
  return url.href.replace(/\/+$/, '');
}
