// Delivers PIN events (pin.sent, pin.delivered, ...) to the accounts' webhook subscriptions, and
// verification events to Twilio Verify Webhooks (signed as Twilio signs): claims
// due rows of the event outbox under a lease, POSTs each body signed the Standard Webhooks way with
// the subscription's secret, and records the outcome. Like the PIN outbox it is at least once: a
// worker that dies mid-request leaves its lease to expire and the event is sent again with the same
// `webhook-id`, on which receivers deduplicate. Failed attempts are retried with exponential backoff
// and jitter until maxAttempts; a subscription disabled or deleted meanwhile cancels its events.
import { randomInt } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import { isTwilioVerificationEvent, twilioSignature } from '../../domain/twilio-events.js';
import type { PinKeyring } from '../../domain/pin-secrets.js';
import type { EventOutboxRecord, EventStore } from '../../store/event-store.js';
import { ADDRESS_REFUSED_CODE, guardedLookup, refusedLiteral, systemResolver, type WebhookAddressPolicy } from '../webhook/webhook-address-guard.js';
import { parseWebhookSecret, signWebhook } from '../webhook/webhook-signature.js';
import { WEBHOOK_TIMEOUT_MS } from '../webhook/webhook-transport.js';

export interface EventWorkerDeps {
  events: EventStore;
  keyring: PinKeyring;
  /** Unix milliseconds for scheduling; injectable so tests can move time past a backoff. */
  clock: () => number;
  logger: Logger;
  /** Attempts per event (the first included) before it is recorded as failed. Default 15 (retries over 3 to 5.5 hours). */
  maxAttempts?: number;
  /** How often to look for due events. Default 1 s. */
  pollIntervalMs?: number;
  /** How long a claimed event is ours; keep it well above timeoutMs. Default 60 s. */
  leaseMs?: number;
  /** Requests in flight at once. Default 8. */
  concurrency?: number;
  /** The n-th retry waits between half and all of min(cap, base * 2^(n-1)). Defaults 5 s and 1 h. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Per request. Default 10 s. */
  timeoutMs?: number;
  /** Seconds since the epoch for `webhook-timestamp` (the receiver compares it with its own clock). */
  wallClockSeconds?: () => number;
  /** Which addresses receivers may have (TWOFA_WEBHOOK_ALLOW_PRIVATE) and how names resolve. Default: public addresses only, system resolver. */
  addresses?: WebhookAddressPolicy;
}

export interface EventWorkerStats {
  delivered: number;
  retried: number;
  failed: number;
  cancelled: number;
}

type Failed = { ok: false; error: string; final?: 'failed' | 'cancelled' };
type Outcome = { ok: true } | Failed;
/** Where an event goes and the headers that sign it. */
type Target = { ok: true; url: URL; headers: Record<string, string> } | Failed;

const MAX_ERROR_LENGTH = 300;
const DEFAULT_STOP_TIMEOUT_MS = 10_000;

export class EventWorker {
  private readonly events: EventStore;
  private readonly keyring: PinKeyring;
  private readonly clock: () => number;
  private readonly logger: Logger;
  private readonly maxAttempts: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly backoffBaseMs: number;
  private readonly backoffCapMs: number;
  private readonly timeoutMs: number;
  private readonly wallClockSeconds: () => number;
  private readonly addresses: WebhookAddressPolicy;
  /** Connections are made through these agents so that their lookup hook sees every address connected to. */
  private readonly agents: { http: http.Agent; https: https.Agent };

  private running = false;
  /** Set by stop(): events claimed after it are handed back untouched. */
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private claiming = false;
  private readonly inflight = new Set<Promise<void>>();
  private readonly counters: EventWorkerStats = { delivered: 0, retried: 0, failed: 0, cancelled: 0 };

  constructor(deps: EventWorkerDeps) {
    this.events = deps.events;
    this.keyring = deps.keyring;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.maxAttempts = deps.maxAttempts ?? 15;
    this.pollIntervalMs = deps.pollIntervalMs ?? 1000;
    this.leaseMs = deps.leaseMs ?? 60_000;
    this.concurrency = deps.concurrency ?? 8;
    this.backoffBaseMs = deps.backoffBaseMs ?? 5000;
    this.backoffCapMs = deps.backoffCapMs ?? 60 * 60_000;
    this.timeoutMs = deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.wallClockSeconds = deps.wallClockSeconds ?? (() => Math.floor(Date.now() / 1000));
    this.addresses = deps.addresses ?? { allowPrivate: false, resolve: systemResolver };
    const lookup = this.addresses.allowPrivate ? undefined : guardedLookup(this.addresses.resolve);
    this.agents = { http: new http.Agent({ keepAlive: true, lookup }), https: new https.Agent({ keepAlive: true, lookup }) };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopped = false;
    this.schedule(0);
  }

  /** Looks for due events now rather than at the next poll. */
  wake(): void {
    if (this.running) this.schedule(0);
  }

  /** Stops claiming and waits up to `timeoutMs` for requests in flight (the rest keep their lease and are retried after it). */
  async stop(timeoutMs = DEFAULT_STOP_TIMEOUT_MS): Promise<void> {
    this.running = false;
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    const idle = (async () => {
      while (this.claiming || this.inflight.size > 0) await Promise.race([...this.inflight, delay(10)]);
    })();
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([idle.then(() => true), new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); })]);
    clearTimeout(timer);
    this.agents.http.destroy();
    this.agents.https.destroy();
    if (!finished) this.logger.warn({ inFlight: this.inflight.size }, 'event worker stopped with requests still in flight; they are retried when their lease expires');
  }

  /** Delivers until nothing is due and nothing is in flight (later retries are not waited for). For tests and one-shot commands. */
  async drain(): Promise<void> {
    for (;;) {
      const started = await this.claimAndStart();
      if (started > 0) continue;
      if (started === 0 && this.inflight.size === 0 && !this.claiming) return;
      await Promise.race([...this.inflight, delay(10)]);
    }
  }

  stats(): EventWorkerStats {
    return { ...this.counters };
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    if (!this.running) return;
    const started = await this.claimAndStart();
    // A full claim means more may be due: look again as soon as a lane frees up, else at the next poll.
    if (this.running && this.timer === undefined) this.schedule(started > 0 && this.inflight.size < this.concurrency ? 0 : this.pollIntervalMs);
  }

  /** Claims as many events as there are free lanes and starts them; -1 when another claim is under way. Never throws. */
  private async claimAndStart(): Promise<number> {
    const wanted = this.concurrency - this.inflight.size;
    if (this.claiming) return -1;
    if (wanted <= 0) return -1;
    this.claiming = true;
    try {
      const now = this.clock();
      let items: EventOutboxRecord[];
      try {
        items = await this.events.claim(now, now + this.leaseMs, wanted);
      } catch (err) {
        this.logger.error({ err: errorMessage(err) }, 'could not claim events; trying again at the next poll');
        return 0;
      }
      if (this.stopped && !this.running && items.length > 0) {
        await this.events.release(items.map((i) => i.id), this.clock()).catch(() => undefined);
        return 0;
      }
      for (const item of items) {
        const delivery: Promise<void> = this.deliver(item).finally(() => {
          this.inflight.delete(delivery);
          if (this.running) this.schedule(0);
        });
        this.inflight.add(delivery);
      }
      return items.length;
    } finally {
      this.claiming = false;
    }
  }

  /** Sends one event and records the outcome. Never throws. */
  private async deliver(item: EventOutboxRecord): Promise<void> {
    const fields = { eventId: item.id, type: item.type, subscriptionId: item.subscriptionId, pinId: item.pinId, attempt: item.attempts };
    let outcome: Outcome;
    try {
      outcome = await this.send(item);
    } catch (err) {
      outcome = { ok: false, error: errorMessage(err) };
    }
    const now = this.clock();
    try {
      if (outcome.ok) {
        await this.events.complete(item.id, now);
        this.counters.delivered += 1;
        this.logger.info(fields, 'event delivered');
        return;
      }
      const error = outcome.error.length <= MAX_ERROR_LENGTH ? outcome.error : `${outcome.error.slice(0, MAX_ERROR_LENGTH - 1)}…`;
      if (outcome.final === undefined && item.attempts < this.maxAttempts) {
        const wait = this.backoffDelay(item.attempts);
        await this.events.retry(item.id, now + wait, error, now);
        this.counters.retried += 1;
        this.logger.warn({ ...fields, error, retryInMs: wait }, 'event delivery failed; will retry');
        return;
      }
      const state = outcome.final ?? 'failed';
      await this.events.fail(item.id, error, now, state);
      this.counters[state] += 1;
      if (state === 'cancelled') this.logger.info({ ...fields, error }, 'event cancelled');
      else this.logger.warn({ ...fields, error }, 'event delivery failed');
    } catch (err) {
      this.logger.error({ ...fields, err: errorMessage(err) }, 'could not record the event outcome; it is sent again when its lease expires');
    }
  }

  private async send(item: EventOutboxRecord): Promise<Outcome> {
    const target = isTwilioVerificationEvent(item.type) ? await this.twilioTarget(item) : await this.standardTarget(item);
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

  /** Between half and all of min(cap, base * 2^(attempt-1)): spread out, yet never back at once. */
  private backoffDelay(attempt: number): number {
    const ceiling = Math.min(this.backoffCapMs, this.backoffBaseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
    const half = Math.floor(ceiling / 2);
    return half + randomInt(0, ceiling - half + 1);
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

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Deliberately not unref'd: a caller awaiting drain() or stop() must get its answer. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
