// The one shape in which every HTTP SMS provider's delivery-status callback is described, so the
// callback route (`/api/v1/callbacks/<provider>`) can be mounted once for all of them: the route
// reads the request into a CallbackRequest, asks verify() whether the provider really sent it, and
// hands parse() the rest. Each provider authenticates its callbacks differently:
//   - twilio:  X-Twilio-Signature, HMAC-SHA1 keyed with the auth token over the URL Twilio called
//              and the sorted form fields (twilio/twilio-callback.ts);
//   - vonage:  a `sig` parameter, the signed-webhooks hash over the sorted parameters keyed with the
//              account's signature secret, when one is configured; otherwise a shared token in the
//              query string (vonage/vonage-callback.ts);
//   - infobip: Infobip does not sign delivery reports, so the notify URL carries a shared token
//              (`?token=...`) that is compared in constant time (infobip/infobip-callback.ts);
//   - whatsapp: X-Hub-Signature-256, `sha256=` + the hex HMAC-SHA256 of the raw body keyed with the
//              Meta app's secret; a GET with hub.verify_token is the subscription handshake
//              (whatsapp/whatsapp-callback.ts);
//   - telegram: X-Request-Signature, the hex HMAC-SHA256 of `timestamp + "\n" + body` keyed with the
//              SHA-256 of the Gateway token, with X-Request-Timestamp recent (telegram/telegram-callback.ts).
// A callback that no configured mechanism authenticates is refused: an unauthenticated receipt
// could mark a PIN undelivered and push a failover pair into sending it again.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { DeliveryReceipt } from '../transport.js';

export type ProviderName = 'twilio' | 'vonage' | 'infobip' | 'whatsapp' | 'telegram';

/** The DSN schemes of the HTTP providers: known here, without loading their transports (see dsn.ts). */
export const PROVIDER_SCHEMES: readonly ProviderName[] = ['twilio', 'vonage', 'infobip', 'whatsapp', 'telegram'];

export function isProviderScheme(scheme: string): scheme is ProviderName {
  return (PROVIDER_SCHEMES as readonly string[]).includes(scheme);
}

/** What the callback route knows about one incoming callback request. */
export interface CallbackRequest {
  /**
   * The absolute URL the provider called, query string included, as the provider addressed it
   * (behind a TLS-terminating proxy: the public URL, not the internal one).
   */
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** The parameters of the query string. */
  query: Record<string, string>;
  /**
   * The body: the form fields as a string record for `application/x-www-form-urlencoded`, the
   * parsed value for `application/json`, undefined when there is none (GET).
   */
  body: unknown;
  /** The body exactly as received (JSON bodies only), for signatures computed over its bytes. */
  rawBody?: string;
  /** When the request arrived (UNIX ms), for signatures that carry a timestamp (refused without it). */
  receivedAt?: number;
}

export type CallbackParseResult =
  /** Receipts for the final statuses in the callback; empty when it only reports progress (queued, sent, ...). */
  | { ok: true; receipts: DeliveryReceipt[] }
  /** The callback is authentic but not in the provider's documented shape: answer 400 and log `error`. */
  | { ok: false; error: string };

/**
 * A provider's callback, described once per provider; `Config` is what verify() needs from the
 * transport's DSN (a token or secret).
 */
export interface ProviderCallback<Config> {
  readonly provider: ProviderName;
  /** HTTP methods the provider uses for this callback. */
  readonly methods: readonly ('GET' | 'POST')[];
  /** Body encodings the provider uses (none for GET). */
  readonly contentTypes: readonly ('form' | 'json')[];
  /** Whether the request provably comes from the provider account behind `config`. Never throws. */
  verify(request: CallbackRequest, config: Config): boolean;
  /** The receipts in a verified request; `now` (UNIX ms) stands in when the provider gives no time. */
  parse(request: CallbackRequest, now: number): CallbackParseResult;
  /**
   * A subscription handshake (Meta's GET with hub.challenge): the text to answer with when the
   * request proves it comes from whoever configured the subscription, otherwise undefined.
   */
  handshake?(request: CallbackRequest, config: Config): string | undefined;
}

/** A ProviderCallback bound to one transport's configuration: what the route actually calls. */
export interface BoundProviderCallback {
  readonly provider: ProviderName;
  readonly methods: readonly ('GET' | 'POST')[];
  readonly contentTypes: readonly ('form' | 'json')[];
  verify(request: CallbackRequest): boolean;
  parse(request: CallbackRequest, now: number): CallbackParseResult;
  handshake?(request: CallbackRequest): string | undefined;
}

export function bindCallback<Config>(callback: ProviderCallback<Config>, config: Config): BoundProviderCallback {
  return {
    provider: callback.provider,
    methods: callback.methods,
    contentTypes: callback.contentTypes,
    verify: (request) => {
      try {
        return callback.verify(request, config);
      } catch {
        return false;
      }
    },
    parse: (request, now) => callback.parse(request, now),
    ...(callback.handshake !== undefined && { handshake: (request: CallbackRequest) => callback.handshake?.(request, config) }),
  };
}

/** A transport whose provider reports delivery by callback. */
export interface CallbackCapable {
  readonly callback: BoundProviderCallback;
}

export function hasProviderCallback<T extends object>(transport: T): transport is T & CallbackCapable {
  const candidate = (transport as { callback?: unknown }).callback;
  return typeof candidate === 'object' && candidate !== null && typeof (candidate as BoundProviderCallback).verify === 'function';
}

/**
 * Compares two secrets or signatures without leaking through timing where they differ. Both sides
 * are hashed first so that inputs of different lengths take the same path (only "not equal" leaks).
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right);
}

/** The shared-token check used where the provider does not sign (query parameter `token`). */
export function verifyCallbackToken(request: CallbackRequest, expected: string): boolean {
  const given = request.query.token;
  return typeof given === 'string' && given !== '' && constantTimeEqual(given, expected);
}

/**
 * The callback URL to hand the provider, with the shared token added as `token` (unless the
 * operator already put one there).
 */
export function withCallbackToken(url: URL, token: string | undefined): string {
  if (token === undefined || url.searchParams.has('token')) return url.href;
  const copy = new URL(url.href);
  copy.searchParams.set('token', token);
  return copy.href;
}

/** A header's value; names are matched case-insensitively. */
export function headerValue(request: CallbackRequest, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(request.headers)) {
    if (key.toLowerCase() === lower) return value;
  }
  return undefined;
}

/** Form fields or flat JSON object as strings; nested values are refused (undefined). */
export function flatStringRecord(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    if (typeof entry === 'string') out[key] = entry;
    else if (typeof entry === 'number' || typeof entry === 'boolean') out[key] = String(entry);
    else if (entry === null) out[key] = '';
    else return undefined;
  }
  return out;
}
