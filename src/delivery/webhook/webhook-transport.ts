// `webhook+http(s)://`: POSTs each message as JSON to the operator's endpoint, signed the Standard
// Webhooks way, so the operator can hand PINs to any provider or in-house gateway we do not ship.
import { randomUUID } from 'node:crypto';
import type { DeliveryResult, OutgoingMessage, Transport } from '../transport.js';
import { parseWebhookSecret, signWebhook } from './webhook-signature.js';
import { describePostFailure, isThrottlingStatus, postOnce } from '../http-post.js';
import { throttledFor } from '../transport-pacer.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;

export interface WebhookTransportOptions {
  /** The endpoint, without the secret. */
  url: URL;
  /** `whsec_<base64>`. */
  secret: string;
  timeoutMs?: number;
  /** Seconds since the epoch for `webhook-timestamp`; injectable for tests. */
  clock?: () => number;
}

/** The fields the receiver gets; accountId stays inside: it is our tenancy, not the recipient's. */
export interface WebhookPayload {
  channel: OutgoingMessage['channel'];
  to: string;
  from?: string;
  text?: string;
  subject?: string;
  html?: string;
  pinId: string;
  applicationId: string;
  messageId: string;
}

export class WebhookTransport implements Transport {
  readonly name = 'webhook';
  private readonly key: Buffer;
  private readonly timeoutMs: number;
  private readonly clock: () => number;

  constructor(private readonly options: WebhookTransportOptions) {
    const parsed = parseWebhookSecret(options.secret);
    if (!parsed.ok) throw new Error(`webhook secret: ${parsed.error}`);
    this.key = parsed.key;
    this.timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
  }

  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    const body = JSON.stringify(payloadOf(message));
    // One id per outbox row when the worker supplies it: Standard Webhooks receivers deduplicate
    // on webhook-id, which is what makes our at-least-once retries harmless for them.
    const id = `msg_${message.deliveryId ?? randomUUID()}`;
    const timestamp = this.clock();
    const answer = await postOnce(this.options.url, {
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': timestamp.toString(),
        'webhook-signature': signWebhook(this.key, id, timestamp, body),
      },
      body,
      timeoutMs: this.timeoutMs,
      // The body is of no use to us; it is read and dropped so that the connection is reused.
      bodyMaxBytes: 0,
    });
    if (answer.kind === 'failed') return { ok: false, retryable: true, error: describePostFailure('webhook', answer, this.timeoutMs) };

    const status = answer.status;
    if (status >= 200 && status < 300) return { ok: true, providerMessageId: id };
    if (status >= 300 && status < 400) {
      return { ok: false, retryable: false, error: `webhook answered with a redirect (HTTP ${status}); put the final URL in the DSN` };
    }
    // 408 and 429 mean "not now"; any other 4xx means the receiver refuses this message for good.
    // 429 and 503 also ask us to slow down: the pacer pauses and sends again.
    if (isThrottlingStatus(status)) return { ok: false, retryable: true, error: `webhook answered HTTP ${status}`, throttled: throttledFor(answer.retryAfter) };
    const retryable = !(status >= 400 && status < 500) || status === 408 || status === 429;
    return { ok: false, retryable, error: `webhook answered HTTP ${status}` };
  }
}

function payloadOf(message: OutgoingMessage): WebhookPayload {
  return {
    channel: message.channel,
    to: message.to,
    ...(message.from !== undefined && { from: message.from }),
    ...(message.text !== undefined && { text: message.text }),
    ...(message.subject !== undefined && { subject: message.subject }),
    ...(message.html !== undefined && { html: message.html }),
    pinId: message.pinId,
    applicationId: message.applicationId,
    messageId: message.messageId,
  };
}
