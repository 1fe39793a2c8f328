// Delivers PIN events (pin.sent, pin.delivered, ...) to the accounts' webhook subscriptions,
// verification events to Twilio Verify Webhooks (signed as Twilio signs), Vonage Verify callbacks to
// the Vonage applications' callback URLs (signed as Vonage signs) and Prelude webhooks to their
// verifications' callback URLs (queued by the store's sweep before each claim): claims due rows of the event
// outbox through the leased loop (leased-worker.ts), POSTs each body signed the Standard Webhooks way
// with the subscription's secret, and records the outcome. Like the PIN outbox it is at least once: an
// event whose node died is sent again with the same `webhook-id`, on which receivers deduplicate.
// Failed attempts are retried with exponential backoff and jitter until maxAttempts; a subscription
// disabled or deleted meanwhile cancels its events.
import http from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import { isTwilioVerificationEvent, twilioSignature } from '../../domain/twilio-events.js';
import { isPreludeWebhook } from '../../domain/prelude-webhooks.js';
import { isVonageCallback, vonageCallbackAuthorization, vonageSignatureSecretId } from '../../domain/vonage-callbacks.js';
import type { PinKeyring } from '../../domain/pin-secrets.js';
import type { EventOutboxRecord, EventStore } from '../../store/event-store.js';
import { decide, errorMessage, LeasedWorker, logDecision, type AttemptOutcome, type LoopSettings, type RetryPolicy, type Settlement } from '../leased-worker.js';
import { noopMetrics, type Metrics } from '../../observability/metrics.js';
import { ADDRESS_REFUSED_CODE, guardedLookup, refusedLiteral, systemResolver, type WebhookAddressPolicy } from '../webhook/webhook-address-guard.js';
import { parseWebhookSecret, signWebhook } from '../webhook/webhook-signature.js';
import { WEBHOOK_TIMEOUT_MS } from '../webhook/webhook-transport.js';

export interface EventWorkerDeps extends Omit<LoopSettings, 'batchSize'> {
  events: EventStore;
  keyring: PinKeyring;
  /** Attempts per event (the first included) before it is recorded as failed. Default 15 (retries over 3 to 5.5 hours). */
  maxAttempts?: number;
  /** The n-th retry waits between half and all of min(cap, base * 2^(n-1)). Defaults 5 s and 1 h. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Per request. Default 10 s. */
  timeoutMs?: number;
  /** Seconds since the epoch for `webhook-timestamp` (the receiver compares it with its own clock). */
  wallClockSeconds?: () => number;
  /** Which addresses receivers may have (TWOFA_WEBHOOK_ALLOW_PRIVATE) and how names resolve. Default: public addresses only, system resolver. */
  addresses?: WebhookAddressPolicy;
  /** Where each attempt's outcome is counted (twofa_event_deliveries_total). Default: nowhere. */
  metrics?: Metrics;
}

const LOG_MESSAGES: Record<Settlement, string> = {
  delivered: 'event delivered', retried: 'event delivery failed; will retry', cancelled: 'event cancelled', failed: 'event delivery failed',
};

type Failed = Extract<AttemptOutcome, { ok: false }>;
/** Where an event goes and the headers that sign it. */
type Target = { ok: true; url: URL; headers: Record<string, string> } | Failed;

export class EventWorker {
  private readonly events: EventStore;
  private readonly keyring: PinKeyring;
  private readonly clock: () => number;
  private readonly logger: Logger;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly wallClockSeconds: () => number;
  private readonly addresses: WebhookAddressPolicy;
  /** Connections are made through these agents so that their lookup hook sees every address connected to. */
  private readonly agents: { http: http.Agent; https: https.Agent };
  private readonly loop: LeasedWorker<EventOutboxRecord>;
  private readonly metrics: Metrics;

  constructor(deps: EventWorkerDeps) {
    this.events = deps.events;
    this.keyring = deps.keyring;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.metrics = deps.metrics ?? noopMetrics;
    this.policy = { maxAttempts: deps.maxAttempts ?? 15, backoffBaseMs: deps.backoffBaseMs ?? 5000, backoffCapMs: deps.backoffCapMs ?? 60 * 60_000 };
    this.timeoutMs = deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.wallClockSeconds = deps.wallClockSeconds ?? (() => Math.floor(Date.now() / 1000));
    this.addresses = deps.addresses ?? { allowPrivate: false, resolve: systemResolver };
    const lookup = this.addresses.allowPrivate ? undefined : guardedLookup(this.addresses.resolve);
    this.agents = { http: new http.Agent({ keepAlive: true, lookup }), https: new https.Agent({ keepAlive: true, lookup }) };
    const events = deps.events;
    this.loop = new LeasedWorker<EventOutboxRecord>({
      ...deps,
      what: 'events',
      queue: {
        // The dialects' callbacks are queued from what committed since the last claim, then claimed with the rest.
        claim: async (now, leaseUntil, max, holder) => {
          await events.queueDialectCallbacks(now);
          return events.claim(now, leaseUntil, max, holder);
        },
        renew: (items, holder, leaseUntil) => events.renew(items.map(({ id, attempts }) => ({ id, attempts })), holder, leaseUntil),
        release: (items, now) => events.release(items.map((item) => item.id), now),
        releaseHeld: (holder, now, keep) => events.releaseHeld(holder, now, keep.map((item) => item.id)),
      },
      deliver: (item) => this.deliver(item),
      // A claim asks for no more events than there are free lanes.
      batchSize: deps.concurrency ?? 8,
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Looks for due events now rather than at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  /** Stops claiming and waits up to `timeoutMs` for requests in flight (see LeasedWorker.stop), then closes the connections. */
  async stop(timeoutMs?: number): Promise<void> {
    await this.loop.stop(timeoutMs);
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** Delivers until nothing is due and nothing is in flight (later retries are not waited for). For tests and one-shot commands. */
  drain(): Promise<void> {
    return this.loop.drain();
  }


  /** Sends one event and settles the outcome. Never throws. */
  private async deliver(item: EventOutboxRecord): Promise<void> {
    let outcome: AttemptOutcome;
    try {
      outcome = await this.send(item);
    } catch (err) {
      outcome = { ok: false, error: errorMessage(err) };
    }
    await this.settle(item, outcome);
  }

  /** The one tail of every attempt: the store write, the metric and the log line. */
  private async settle(item: EventOutboxRecord, outcome: AttemptOutcome): Promise<void> {
    const fields = { eventId: item.id, type: item.type, subscriptionId: item.subscriptionId, pinId: item.pinId, attempt: item.attempts };
    const now = this.clock();
    const decision = decide(this.policy, item.attempts, outcome, now);
    try {
      if (decision.state === 'delivered') await this.events.complete(item.id, now);
      else if (decision.state === 'retried') await this.events.retry(item.id, now + decision.retryInMs, decision.error, now);
      else await this.events.fail(item.id, decision.error, now, decision.state);
    } catch (err) {
      this.logger.error({ ...fields, err: errorMessage(err) }, 'could not record the event outcome; it is sent again when its lease expires');
      return;
    }
    this.metrics.eventDelivery(decision.state);
    logDecision(this.logger, fields, decision, LOG_MESSAGES);
  }

  private async send(item: EventOutboxRecord): Promise<AttemptOutcome> {
    const target = isTwilioVerificationEvent(item.type) ? await this.twilioTarget(item)
      : isVonageCallback(item.type) ? await this.vonageTarget(item)
        : isPreludeWebhook(item.type) ? await this.preludeTarget(item)
          : await this.standardTarget(item);
    if (!target.ok) return target;
    const { url, headers } = target;
    // The lookup hook never sees an IP literal: those are judged here (the URL was checked when it
    // was saved, but the operator may have withdrawn TWOFA_WEBHOOK_ALLOW_PRIVATE since).
    const literal = refusedLiteral(url.hostname, this.addresses);
    if (literal !== undefined) return { ok: false, error: literal, final: 'failed' };
    let status: number;
    try {
      status = await this.post(url, item.payload, headers);
    } catch (err) {
      return { ok: false, error: describeRequestError(err, this.timeoutMs, url.host) };
    }
    if (status >= 200 && status < 300) return { ok: true };
    // Any other answer is retried: a receiver answering 4xx is most often misconfigured (a wrong
    // secret, a route not deployed yet), and the backoff leaves time to fix it.
    return { ok: false, error: `${url.host} answered HTTP ${status}` };
  }

  /** A subscription of /api/v1/webhooks: JSON signed the Standard Webhooks way with its `whsec_` secret. */
  private async standardTarget(item: EventOutboxRecord): Promise<Target> {
    const [subscription] = await this.events.findSubscriptions([item.subscriptionId]);
    if (subscription === undefined) return { ok: false, error: 'the subscription was deleted', final: 'cancelled' };
    if (!subscription.enabled) return { ok: false, error: 'the subscription is disabled', final: 'cancelled' };
    const secret = this.keyring.decryptWebhookSecret(subscription.id, subscription.secretCiphertext);
    const key = secret === null ? undefined : parseWebhookSecret(secret);
    if (key === undefined || !key.ok) {
      return { ok: false, error: 'the subscription\'s secret cannot be decrypted (made under a TWOFA_SECRET no longer configured): set a new one', final: 'failed' };
    }
    // One id per event and subscription, the same on every attempt: receivers deduplicate on it.
    const id = `msg_${item.id}`;
    const timestamp = this.wallClockSeconds();
    return {
      ok: true, url: new URL(subscription.url), headers: {
        'content-type': 'application/json',
        'user-agent': 'twofa-webhooks',
        'webhook-id': id,
        'webhook-timestamp': timestamp.toString(),
        'webhook-signature': signWebhook(key.key, id, timestamp, item.payload),
      },
    };
  }

  /**
   * A Twilio Verify Webhook: a form signed as Twilio signs (X-Twilio-Signature with the account's
   * Auth Token, read at each attempt so that a rotated token signs from then on).
   */
  private async twilioTarget(item: EventOutboxRecord): Promise<Target> {
    const webhook = await this.events.findTwilioWebhook(item.subscriptionId);
    if (webhook === undefined) return { ok: false, error: 'the webhook was deleted', final: 'cancelled' };
    if (!webhook.enabled) return { ok: false, error: 'the webhook is disabled', final: 'cancelled' };
    const token = webhook.tokenCiphertext === null ? null : this.keyring.decryptTwilioAuthToken(webhook.accountId, webhook.tokenCiphertext);
    if (token === null) {
      return { ok: false, error: 'the account\'s Auth Token cannot be decrypted (made under a TWOFA_SECRET no longer configured): rotate it', final: 'failed' };
    }
    return {
      ok: true, url: new URL(webhook.url), headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'twofa-webhooks',
        // Twilio's header for retries of one event; the body's `uuid` names the event too.
        'i-twilio-idempotency-token': item.id,
        'x-twilio-signature': twilioSignature(token, webhook.url, item.payload),
      },
    };
  }

  /**
   * A Vonage Verify callback: JSON to the Vonage application's callback URL, read at each attempt (a
   * URL removed cancels the callbacks still waiting), signed with its signature secret as Vonage
   * signs (a JWT whose payload_hash is the body's SHA-256).
   */
  private async vonageTarget(item: EventOutboxRecord): Promise<Target> {
    const target = await this.events.findVonageCallbackTarget(item.subscriptionId);
    if (target?.url == null) return { ok: false, error: 'the Vonage application has no callback URL any more', final: 'cancelled' };
    const secret = target.secretCiphertext === null ? null : this.keyring.decryptWebhookSecret(vonageSignatureSecretId(item.subscriptionId), target.secretCiphertext);
    if (secret === null) {
      return { ok: false, error: 'the Vonage application\'s signature secret cannot be decrypted (made under a TWOFA_SECRET no longer configured): rotate it', final: 'failed' };
    }
    return {
      ok: true, url: new URL(target.url), headers: {
        'content-type': 'application/json',
        'user-agent': 'twofa-webhooks',
        authorization: vonageCallbackAuthorization(secret, item.subscriptionId, item.payload, this.wallClockSeconds()),
      },
    };
  }

  /**
   * A Prelude Verify webhook: JSON to the callback URL its verification's create named. Unsigned:
   * Prelude does not publish what its signature covers (docs/prelude-verify.md).
   */
  private async preludeTarget(item: EventOutboxRecord): Promise<Target> {
    const url = await this.events.findPreludeCallbackUrl(item.subscriptionId);
    if (url === undefined) return { ok: false, error: 'the verification is gone', final: 'cancelled' };
    return { ok: true, url: new URL(url), headers: { 'content-type': 'application/json', 'user-agent': 'twofa-webhooks' } };
  }

  /**
   * POSTs the body and resolves with the answer's status (its body is discarded). Redirects are not
   * followed: one would carry the event to a URL the account never configured.
   */
  private post(url: URL, body: string, headers: Record<string, string>): Promise<number> {
    const client = url.protocol === 'https:' ? https : http;
    const agent = url.protocol === 'https:' ? this.agents.https : this.agents.http;
    return new Promise((resolve, reject) => {
      const request = client.request(url, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, agent, signal: AbortSignal.timeout(this.timeoutMs) }, (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
        response.once('error', reject);
      });
      request.once('error', reject);
      request.end(body);
    });
  }
}

/** Names the host only: a subscription URL may carry a token in its path or query, which logs must not. */
function describeRequestError(err: unknown, timeoutMs: number, host: string): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `${host} did not answer within ${timeoutMs / 1000} s`;
  const code = err instanceof Error ? (err as NodeJS.ErrnoException).code : undefined;
  if (code === ADDRESS_REFUSED_CODE) return `request to ${host} refused: ${errorMessage(err)}`;
  if (typeof code === 'string') return `request to ${host} failed: ${code}`;
  return `request to ${host} failed: ${errorMessage(err)}`;
}
