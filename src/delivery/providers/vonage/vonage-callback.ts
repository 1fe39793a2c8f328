// Vonage SMS API delivery receipts (DLRs): sent to the dashboard's delivery receipt URL (or the
// per-message `callback`) as GET query parameters, a form POST or a JSON POST, whichever the
// account is set to, with messageId, status, err-code and message-timestamp.
//
// Authentication: Vonage signs webhooks when the account has a signature secret. The signed
// request carries `sig` (and `timestamp`, `nonce`); the signature is computed over every other
// parameter, sorted by name, written as `&name=value` with `&` and `=` inside values replaced by
// `_`, then either MD5 of that text followed by the secret ("md5hash", Vonage's default) or an
// HMAC (md5, sha1, sha256, sha512) of the text keyed with the secret, in hex of either case.
// Without a signature secret, the receipt URL must carry a shared token (`?token=...`).
import { createHash, createHmac } from 'node:crypto';
import type { DeliveryReceipt } from '../../transport.js';
import {
  constantTimeEqual,
  flatStringRecord,
  verifyCallbackToken,
  type CallbackParseResult,
  type CallbackRequest,
  type ProviderCallback,
} from '../provider-callback.js';

export const VONAGE_SIGNATURE_METHODS = ['md5hash', 'md5', 'sha1', 'sha256', 'sha512'] as const;
export type VonageSignatureMethod = (typeof VONAGE_SIGNATURE_METHODS)[number];

/** How far a signed receipt's `timestamp` may be from our clock: older ones are treated as replays. */
export const VONAGE_SIGNATURE_MAX_AGE_S = 300;

export interface VonageCallbackConfig {
  signatureSecret?: string;
  signatureMethod?: VonageSignatureMethod;
  callbackToken?: string;
  /** Seconds since the epoch; injectable for tests. */
  clock?: () => number;
}

/** Vonage's signature over a request's parameters (`sig` itself excluded). */
export function vonageSignature(params: Record<string, string>, secret: string, method: VonageSignatureMethod = 'md5hash'): string {
  const text = Object.keys(params)
    .filter((name) => name !== 'sig')
    .sort()
    .map((name) => `&${name}=${(params[name] as string).replace(/[&=]/g, '_')}`)
    .join('');
  if (method === 'md5hash') return createHash('md5').update(text + secret, 'utf8').digest('hex');
  return createHmac(method, secret).update(text, 'utf8').digest('hex');
}

/**
 * Whether the parameters carry a valid `sig` made with `secret`, and a `timestamp` within
 * VONAGE_SIGNATURE_MAX_AGE_S of `nowSeconds`.
 */
export function verifyVonageSignature(
  params: Record<string, string>,
  secret: string,
  method: VonageSignatureMethod = 'md5hash',
  nowSeconds: number = Math.floor(Date.now() / 1000),
): boolean {
  const given = params.sig;
  if (given === undefined || given === '') return false;
  const expected = vonageSignature(params, secret, method);
  const signatureOk = constantTimeEqual(given.toLowerCase(), expected.toLowerCase());
  const timestamp = Number(params.timestamp);
  const fresh = Number.isFinite(timestamp) && Math.abs(nowSeconds - timestamp) <= VONAGE_SIGNATURE_MAX_AGE_S;
  return signatureOk && fresh;
}

/** The parameters of a receipt: the body's for a POST, the query string's for a GET. */
export function vonageParams(request: CallbackRequest): Record<string, string> | undefined {
  const body = flatStringRecord(request.body);
  if (body === undefined) return undefined;
  if (Object.keys(body).length > 0) return body;
  const { token: _token, ...query } = request.query;
  return query;
}

const UNDELIVERED = new Set(['expired', 'failed', 'rejected']);

/**
 * The receipt in a DLR's parameters, or null when the status is not final (accepted, buffered,
 * unknown) or the parameters are missing.
 */
export function parseVonageReceipt(params: Record<string, string>, now: number = Date.now()): DeliveryReceipt | null {
  const messageId = params.messageId ?? params['message-id'];
  const status = params.status?.toLowerCase();
  if (messageId === undefined || messageId === '' || status === undefined) return null;
  const at = receiptTime(params['message-timestamp']) ?? now;
  if (status === 'delivered') return { transport: 'vonage', providerMessageId: messageId, status: 'delivered', at };
  if (UNDELIVERED.has(status)) {
    const code = params['err-code'];
    const error = code !== undefined && code !== '' && code !== '0' ? `${status} (err-code ${code})` : status;
    return { transport: 'vonage', providerMessageId: messageId, status: 'undelivered', error, at };
  }
  return null;
}

// "2018-10-25 12:10:29", in UTC.
function receiptTime(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text)) return undefined;
  const ms = Date.parse(`${text.replace(' ', 'T')}Z`);
  return Number.isFinite(ms) ? ms : undefined;
}

export const vonageCallback: ProviderCallback<VonageCallbackConfig> = {
  provider: 'vonage',
  methods: ['GET', 'POST'],
  contentTypes: ['form', 'json'],
  verify(request: CallbackRequest, config: VonageCallbackConfig): boolean {
    if (config.signatureSecret !== undefined) {
      const params = vonageParams(request);
      if (params === undefined) return false;
      const now = config.clock?.() ?? Math.floor(Date.now() / 1000);
      return verifyVonageSignature(params, config.signatureSecret, config.signatureMethod ?? 'md5hash', now);
    }
    if (config.callbackToken !== undefined) return verifyCallbackToken(request, config.callbackToken);
    return false;
  },
  parse(request: CallbackRequest, now: number): CallbackParseResult {
    const params = vonageParams(request);
    if (params === undefined) return { ok: false, error: 'vonage delivery receipt: the body is not a flat object' };
    const messageId = params.messageId ?? params['message-id'];
    if (messageId === undefined || messageId === '' || params.status === undefined || params.status === '') {
      return { ok: false, error: 'vonage delivery receipt without messageId or status' };
    }
    const receipt = parseVonageReceipt(params, now);
    return { ok: true, receipts: receipt === null ? [] : [receipt] };
  },
};
