// Twilio's message status callback: a form POST to the StatusCallback URL with MessageSid,
// MessageStatus and, for failures, ErrorCode; for calls, CallSid and CallStatus. Twilio signs it with X-Twilio-Signature: the
// base64 HMAC-SHA1, keyed with the account's auth token, of the full URL it called followed by
// every POST field name and value (names sorted, no separators).
import { createHmac } from 'node:crypto';
import type { DeliveryReceipt } from '../../transport.js';
import {
  constantTimeEqual,
  flatStringRecord,
  headerValue,
  type CallbackParseResult,
  type CallbackRequest,
  type ProviderCallback,
} from '../provider-callback.js';

export interface TwilioCallbackConfig {
  authToken: string;
  /**
   * The StatusCallback URL we hand Twilio with each message. Twilio signs the URL it called, so
   * this is the URL to check against even when a proxy makes the request look different to us.
   */
  statusCallback?: string;
}

/** Twilio's signature over a URL and its POST fields. */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((text, name) => text + name + params[name], url);
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/**
 * Whether `signatureHeader` is Twilio's signature of this request. Twilio's own validators also
 * accept the URL with the default port added or removed, because which of the two Twilio signed
 * depends on how the URL was configured; so do we.
 */
export function verifyTwilioSignature(
  authToken: string,
  fullUrl: string,
  params: Record<string, string>,
  signatureHeader: string | undefined,
): boolean {
  if (signatureHeader === undefined || signatureHeader === '') return false;
  let matched = false;
  // Every variant is computed and compared, so the time taken does not tell which one matched.
  for (const url of urlVariants(fullUrl)) {
    if (constantTimeEqual(twilioSignature(authToken, url, params), signatureHeader)) matched = true;
  }
  return matched;
}

function urlVariants(fullUrl: string): string[] {
  const variants = [fullUrl];
  const match = /^(https?):\/\/([^/?#]*)(.*)$/i.exec(fullUrl);
  if (match === null) return variants;
  const [, scheme, authority, rest] = match as unknown as [string, string, string, string];
  const defaultPort = scheme.toLowerCase() === 'https' ? '443' : '80';
  // The port follows the last colon, unless that colon is inside an IPv6 literal ("[::1]").
  const portMatch = /:(\d*)$/.exec(authority.replace(/\[[^\]]*\]/, (literal) => literal.replace(/:/g, '_')));
  if (portMatch === null) variants.push(`${scheme}://${authority}:${defaultPort}${rest}`);
  else if (portMatch[1] === defaultPort) variants.push(`${scheme}://${authority.slice(0, portMatch.index)}${rest}`);
  return variants;
}

const DELIVERED = new Set(['delivered', 'read']);
const UNDELIVERED = new Set(['undelivered', 'failed', 'canceled']);
// A call that was answered ends `completed`; one that never was ends busy, no-answer, failed or
// canceled. queued, initiated, ringing and in-progress are progress reports.
const CALL_UNDELIVERED = new Set(['busy', 'no-answer', 'failed', 'canceled']);

/** The receipt in a call status callback, or null for a progress report. */
function parseCallStatus(params: Record<string, string>, now: number): DeliveryReceipt | null {
  const sid = params.CallSid;
  const status = params.CallStatus?.toLowerCase();
  if (sid === undefined || sid === '' || status === undefined) return null;
  if (status === 'completed') return { transport: 'twilio', providerMessageId: sid, status: 'delivered', at: now };
  if (CALL_UNDELIVERED.has(status)) return { transport: 'twilio', providerMessageId: sid, status: 'undelivered', error: status, at: now };
  return null;
}

/**
 * The receipt in a status callback's fields, or null when the status is not final yet (queued,
 * sending, sent, accepted, scheduled, ...) or the fields are missing.
 */
export function parseTwilioCallback(params: Record<string, string>, now: number = Date.now()): DeliveryReceipt | null {
  if (params.MessageSid === undefined && params.SmsSid === undefined && params.CallSid !== undefined) return parseCallStatus(params, now);
  const sid = params.MessageSid ?? params.SmsSid;
  const status = (params.MessageStatus ?? params.SmsStatus)?.toLowerCase();
  if (sid === undefined || sid === '' || status === undefined) return null;
  if (DELIVERED.has(status)) return { transport: 'twilio', providerMessageId: sid, status: 'delivered', at: now };
  if (UNDELIVERED.has(status)) {
    const code = params.ErrorCode;
    const error = code !== undefined && code !== '' ? `${status} (error ${code})` : status;
    return { transport: 'twilio', providerMessageId: sid, status: 'undelivered', error, at: now };
  }
  return null;
}

export const twilioCallback: ProviderCallback<TwilioCallbackConfig> = {
  provider: 'twilio',
  methods: ['POST'],
  contentTypes: ['form'],
  verify(request: CallbackRequest, config: TwilioCallbackConfig): boolean {
    const params = flatStringRecord(request.body);
    if (params === undefined) return false;
    const signature = headerValue(request, 'x-twilio-signature');
    const urls = config.statusCallback === undefined ? [request.url] : [config.statusCallback, request.url];
    let matched = false;
    for (const url of urls) {
      if (verifyTwilioSignature(config.authToken, url, params, signature)) matched = true;
    }
    return matched;
  },
  parse(request: CallbackRequest, now: number): CallbackParseResult {
    const params = flatStringRecord(request.body);
    if (params === undefined) return { ok: false, error: 'twilio status callback: the body is not a form' };
    const sid = params.MessageSid ?? params.SmsSid ?? params.CallSid;
    const status = params.MessageStatus ?? params.SmsStatus ?? params.CallStatus;
    if (sid === undefined || sid === '' || status === undefined || status === '') {
      return { ok: false, error: 'twilio status callback without MessageSid and MessageStatus (or CallSid and CallStatus)' };
    }
    const receipt = parseTwilioCallback(params, now);
    return { ok: true, receipts: receipt === null ? [] : [receipt] };
  },
};
