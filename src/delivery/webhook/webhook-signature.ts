// Standard Webhooks signing (https://www.standardwebhooks.com): the receiver checks
// `webhook-signature: v1,<base64 HMAC-SHA256(secret, "<id>.<timestamp>.<body>")>` with the shared
// `whsec_` secret, and rejects stale timestamps so a captured request cannot be replayed later.
// The same code signs (the transport) and verifies (tests, and receivers written in TypeScript).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Shorter keys would make the HMAC guessable; Standard Webhooks itself suggests 24 to 64 bytes. */
export const WEBHOOK_SECRET_MIN_BYTES = 16;
/** How old (or how far in the future) a timestamp may be before verification refuses it. */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The key bytes of a `whsec_<base64>` secret, or an explanation of what is wrong with it (never
 * the secret itself, since the explanation ends up in error messages).
 */
export function parseWebhookSecret(secret: string): { ok: true; key: Buffer } | { ok: false; error: string } {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    return { ok: false, error: `the secret must start with ${WEBHOOK_SECRET_PREFIX}` };
  }
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  const key = Buffer.from(encoded, 'base64');
  // Buffer.from skips characters it does not understand; re-encoding catches a mangled secret
  // (a `+` turned into a space by a URL decoder, say) instead of silently signing with other bytes.
  if (!BASE64.test(encoded) || key.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) {
    return { ok: false, error: `the part after ${WEBHOOK_SECRET_PREFIX} must be standard base64` };
  }
  if (key.length < WEBHOOK_SECRET_MIN_BYTES) {
    return {
      ok: false,
      error: `the secret must decode to at least ${WEBHOOK_SECRET_MIN_BYTES} bytes (it has ${key.length}); generate one with: echo whsec_$(openssl rand -base64 32)`,
    };
  }
  return { ok: true, key };
}

export function signWebhook(key: Buffer, id: string, timestamp: number, body: string | Uint8Array): string {
  return `v1,${hmac(key, id, timestamp.toString(), body).toString('base64')}`;
}

function hmac(key: Buffer, id: string, timestamp: string, body: string | Uint8Array): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(body).digest();
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value.join(' ') : value;
  }
  return undefined;
}

export interface VerifyOptions {
  /** Unix seconds; defaults to the current time. */
  now?: number;
  toleranceSeconds?: number;
}

/**
 * True when one of the `v1,` signatures in `webhook-signature` matches the body, id and timestamp,
 * and the timestamp is within the tolerance. `body` must be the raw request body, byte for byte:
 * re-serialised JSON would not match.
 */
export function verifyWebhookSignature(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyOptions = {},
): boolean {
  const parsed = parseWebhookSecret(secret);
  if (!parsed.ok) return false;
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) return false;
  if (!/^\d{1,15}$/.test(timestamp)) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(timestamp)) > tolerance) return false;

  const expected = hmac(parsed.key, id, timestamp, body);
  let matched = false;
  // Several signatures may be sent (one per secret while a secret is rotated); every candidate is
  // compared in constant time and none is skipped early.
  for (const candidate of signatures.split(' ')) {
    const [version, encoded] = candidate.split(',', 2);
    if (version !== 'v1' || encoded === undefined) continue;
    const actual = Buffer.from(encoded, 'base64');
    if (actual.length === expected.length && timingSafeEqual(actual, expected)) matched = true;
  }
  return matched;
}
