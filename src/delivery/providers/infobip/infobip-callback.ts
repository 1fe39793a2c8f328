// Infobip SMS delivery reports: a JSON POST to the message's notify URL (or the account's
// subscription URL) with `results[]`, one entry per message: messageId, status {groupName, name},
// error {name, ...}, doneAt. Status groups: PENDING (not final), DELIVERED, UNDELIVERABLE,
// EXPIRED, REJECTED.
//
// Authentication: Infobip does not sign delivery reports. The notify URL we hand Infobip carries a
// shared secret (`?token=...`, the DSN's callback_token), compared in constant time; a report
// without it is refused.
import type { DeliveryReceipt } from '../../transport.js';
import { verifyCallbackToken, type CallbackParseResult, type CallbackRequest, type ProviderCallback } from '../provider-callback.js';
import { isRecord, reportedPrice, stringField } from '../provider-http.js';
import { formatMicros, parseMicros } from '../../../domain/money.js';
import type { Price } from '../../../domain/prices.js';

export interface InfobipCallbackConfig {
  callbackToken?: string;
}

const UNDELIVERED_GROUPS = new Set(['UNDELIVERABLE', 'EXPIRED', 'REJECTED']);

/**
 * The receipts in a delivery report body; entries that are not final yet (PENDING) give none.
 * Throws on a body that is not in the documented shape.
 */
/** `price.pricePerMessage` x `smsCount` (the parts) in `price.currency`: what the report says the message cost. */
function reportPrice(entry: Record<string, unknown>): Price | undefined {
  if (!isRecord(entry.price)) return undefined;
  const perPart = reportedPrice(entry.price['pricePerMessage'], stringField(entry.price, 'currency'));
  const parts = typeof entry['smsCount'] === 'number' && Number.isInteger(entry['smsCount']) && entry['smsCount'] > 0 ? entry['smsCount'] : 1;
  return perPart && { amount: formatMicros(parseMicros(perPart.amount)! * parts), currency: perPart.currency };
}

export function parseInfobipReport(json: unknown, now: number = Date.now()): DeliveryReceipt[] {
  if (!isRecord(json) || !Array.isArray(json.results)) throw new Error('infobip delivery report without a results list');
  const receipts: DeliveryReceipt[] = [];
  for (const entry of json.results) {
    if (!isRecord(entry)) throw new Error('infobip delivery report entry is not an object');
    const messageId = stringField(entry, 'messageId');
    const status = isRecord(entry.status) ? entry.status : undefined;
    const group = status === undefined ? undefined : stringField(status, 'groupName')?.toUpperCase();
    if (messageId === undefined || messageId === '' || group === undefined) {
      throw new Error('infobip delivery report entry without messageId or status.groupName');
    }
    const at = reportTime(stringField(entry, 'doneAt')) ?? now;
    const price = reportPrice(entry);
    if (group === 'DELIVERED') {
      receipts.push({ transport: 'infobip', providerMessageId: messageId, status: 'delivered', at, ...(price && { price }) });
    } else if (UNDELIVERED_GROUPS.has(group)) {
      const statusName = status === undefined ? undefined : stringField(status, 'name');
      const errorName = isRecord(entry.error) ? stringField(entry.error, 'name') : undefined;
      const reason = errorName !== undefined && errorName !== '' && errorName !== 'NO_ERROR' ? errorName : (statusName ?? group);
      receipts.push({ transport: 'infobip', providerMessageId: messageId, status: 'undelivered', error: reason, at });
    }
  }
  return receipts;
}

// "2019-11-09T16:00:00.000+0000": the offset without a colon, which Date.parse does not promise to read.
function reportTime(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(ms) ? ms : undefined;
}

export const infobipCallback: ProviderCallback<InfobipCallbackConfig> = {
  provider: 'infobip',
  methods: ['POST'],
  contentTypes: ['json'],
  verify(request: CallbackRequest, config: InfobipCallbackConfig): boolean {
    return config.callbackToken !== undefined && verifyCallbackToken(request, config.callbackToken);
  },
  parse(request: CallbackRequest, now: number): CallbackParseResult {
    try {
      return { ok: true, receipts: parseInfobipReport(request.body, now) };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  },
};
