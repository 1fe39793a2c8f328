// Meta's WhatsApp webhooks: a JSON POST per batch of changes, signed with X-Hub-Signature-256
// (`sha256=` + the hex HMAC-SHA256 of the raw body, keyed with the Meta app's secret). Message
// statuses arrive as entry[].changes[].value.statuses[]: `sent` (progress), `delivered` and `read`
// (delivered), `failed` (undelivered, with errors[].code and title). Incoming user messages share
// the webhook and are ignored. The subscription is confirmed once by a GET with hub.mode=subscribe,
// hub.verify_token (the DSN's verify_token) and hub.challenge, which is answered back as it came.
import { createHmac } from 'node:crypto';
import type { DeliveryReceipt } from '../../transport.js';
import { constantTimeEqual, headerValue, type CallbackParseResult, type CallbackRequest, type ProviderCallback } from '../provider-callback.js';
import { isRecord, stringField } from '../provider-http.js';

export interface WhatsappCallbackConfig {
  appSecret: string;
  /** Without one, no handshake is answered (the subscription is set up by another means). */
  verifyToken?: string;
}

/** The value of X-Hub-Signature-256 Meta sends for `rawBody`. */
export function whatsappSignature(appSecret: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody, 'utf8').digest('hex')}`;
}

export const whatsappCallback: ProviderCallback<WhatsappCallbackConfig> = {
  provider: 'whatsapp',
  methods: ['GET', 'POST'],
  contentTypes: ['json'],
  verify(request: CallbackRequest, config: WhatsappCallbackConfig): boolean {
    const signature = headerValue(request, 'x-hub-signature-256');
    if (request.rawBody === undefined || signature === undefined || signature === '') return false;
    return constantTimeEqual(whatsappSignature(config.appSecret, request.rawBody), signature.toLowerCase());
  },
  handshake(request: CallbackRequest, config: WhatsappCallbackConfig): string | undefined {
    const { 'hub.mode': mode, 'hub.verify_token': token, 'hub.challenge': challenge } = request.query;
    if (config.verifyToken === undefined || mode !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string') return undefined;
    // Meta's challenge is a number; anything else is not echoed back into a response.
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(challenge)) return undefined;
    return constantTimeEqual(token, config.verifyToken) ? challenge : undefined;
  },
  parse(request: CallbackRequest, now: number): CallbackParseResult {
    const body = request.body;
    if (!isRecord(body) || !Array.isArray(body.entry)) return { ok: false, error: 'whatsapp webhook without an entry array' };
    const receipts: DeliveryReceipt[] = [];
    for (const entry of body.entry) {
      if (!isRecord(entry) || !Array.isArray(entry.changes)) return { ok: false, error: 'whatsapp webhook entry without changes' };
      for (const change of entry.changes) {
        const value = isRecord(change) && isRecord(change.value) ? change.value : undefined;
        if (value === undefined) return { ok: false, error: 'whatsapp webhook change without a value' };
        if (value.statuses === undefined) continue;
        if (!Array.isArray(value.statuses)) return { ok: false, error: 'whatsapp webhook statuses is not an array' };
        for (const status of value.statuses) {
          const receipt = isRecord(status) ? statusReceipt(status, now) : null;
          if (receipt === undefined) return { ok: false, error: 'whatsapp status without id and status' };
          if (receipt !== null) receipts.push(receipt);
        }
      }
    }
    return { ok: true, receipts };
  },
};

/** The receipt for one status; null for progress (`sent`), undefined when the status is malformed. */
function statusReceipt(status: Record<string, unknown>, now: number): DeliveryReceipt | null | undefined {
  const id = stringField(status, 'id');
  const state = stringField(status, 'status');
  if (id === undefined || id === '' || state === undefined || state === '') return undefined;
  const seconds = Number(stringField(status, 'timestamp'));
  const at = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : now;
  if (state === 'delivered' || state === 'read') return { transport: 'whatsapp', providerMessageId: id, status: 'delivered', at };
  if (state !== 'failed') return null;
  const first = Array.isArray(status.errors) && isRecord(status.errors[0]) ? status.errors[0] : undefined;
  const code = first === undefined ? undefined : stringField(first, 'code');
  const title = first === undefined ? undefined : stringField(first, 'title');
  // The title is Meta's wording for the code ("Message undeliverable"); digit runs are hidden all the same.
  const shown = title === undefined ? '' : `: ${title.slice(0, 100).replace(/\d{4,}/g, '***')}`;
  const error = code === undefined ? 'failed' : `failed (error ${code}${shown})`;
  return { transport: 'whatsapp', providerMessageId: id, status: 'undelivered', error, at };
}
