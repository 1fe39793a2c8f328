// The Telegram Gateway's delivery reports: a JSON POST of a RequestStatus object to the
// callback_url given with each message, signed with X-Request-Timestamp (UNIX seconds) and
// X-Request-Signature, the hex HMAC-SHA256 of `timestamp + "\n" + body` keyed with the SHA-256 of
// the API token. A report whose timestamp is more than five minutes away from our clock is refused:
// a captured report must not be replayable later. delivery_status.status `delivered` and `read`
// mean delivered; `expired` (not delivered within the ttl) means undelivered; `sent` is progress
// and `revoked` our own doing.
import { createHash, createHmac } from 'node:crypto';
import type { DeliveryReceipt } from '../../transport.js';
import { constantTimeEqual, headerValue, type CallbackParseResult, type CallbackRequest, type ProviderCallback } from '../provider-callback.js';
import { isRecord, stringField } from '../provider-http.js';

export interface TelegramCallbackConfig {
  token: string;
}

/** How far a report's timestamp may be from our clock. */
export const TELEGRAM_CALLBACK_MAX_SKEW_MS = 5 * 60_000;

/** The X-Request-Signature the Gateway sends for `rawBody` at `timestamp` (seconds, as in the header). */
export function telegramSignature(token: string, timestamp: string, rawBody: string): string {
  const key = createHash('sha256').update(token, 'utf8').digest();
  return createHmac('sha256', key).update(`${timestamp}\n${rawBody}`, 'utf8').digest('hex');
}

export const telegramCallback: ProviderCallback<TelegramCallbackConfig> = {
  provider: 'telegram',
  methods: ['POST'],
  contentTypes: ['json'],
  verify(request: CallbackRequest, config: TelegramCallbackConfig): boolean {
    const timestamp = headerValue(request, 'x-request-timestamp');
    const signature = headerValue(request, 'x-request-signature');
    if (request.rawBody === undefined || timestamp === undefined || signature === undefined || !/^\d{1,12}$/.test(timestamp)) return false;
    if (request.receivedAt === undefined || Math.abs(request.receivedAt - Number(timestamp) * 1000) > TELEGRAM_CALLBACK_MAX_SKEW_MS) return false;
    return constantTimeEqual(telegramSignature(config.token, timestamp, request.rawBody), signature.toLowerCase());
  },
  parse(request: CallbackRequest, now: number): CallbackParseResult {
    const body = request.body;
    const requestId = isRecord(body) ? stringField(body, 'request_id') : undefined;
    const delivery = isRecord(body) && isRecord(body.delivery_status) ? body.delivery_status : undefined;
    const status = delivery === undefined ? undefined : stringField(delivery, 'status');
    if (requestId === undefined || requestId === '' || status === undefined) {
      return { ok: false, error: 'telegram report without request_id and delivery_status.status' };
    }
    const seconds = Number(stringField(delivery as Record<string, unknown>, 'updated_at'));
    const at = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : now;
    let receipt: DeliveryReceipt | undefined;
    if (status === 'delivered' || status === 'read') receipt = { transport: 'telegram', providerMessageId: requestId, status: 'delivered', at };
    else if (status === 'expired') receipt = { transport: 'telegram', providerMessageId: requestId, status: 'undelivered', error: 'expired', at };
    return { ok: true, receipts: receipt === undefined ? [] : [receipt] };
  },
};
