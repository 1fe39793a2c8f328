// Prometheus metrics. Services and the delivery worker report through the small Metrics port
// (so they never import prom-client); this module turns the reports into series on one registry.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Channel } from '../domain/channels.js';
import { MICROS_PER_UNIT } from '../domain/money.js';
import type { MessagePrice } from '../domain/price-list.js';

export type VerifyOutcomeLabel = 'verified' | 'WRONG_PIN' | 'TTL_EXPIRED' | 'NO_MORE_PIN_ATTEMPTS' | 'ALREADY_VERIFIED';
export type DeliveryOutcomeLabel = 'delivered' | 'retried' | 'failed' | 'cancelled';

/** What the rest of the code reports; `noopMetrics` serves where nobody scrapes. */
export interface Metrics {
  pinSent(channel: Channel, kind: 'send' | 'resend', queued: boolean): void;
  verification(channel: Channel, outcome: VerifyOutcomeLabel): void;
  rateLimited(limit: string): void;
  delivery(channel: Channel, transport: string, outcome: DeliveryOutcomeLabel): void;
  /** How long a transport took to accept or refuse one message. */
  transportLatency(channel: Channel, transport: string, durationMs: number): void;
  /** Time to the phone: from the API accepting the message to its transport accepting it. */
  deliveryLatency(channel: Channel, transport: string, durationMs: number): void;
  /** A provider said "not now" and its transport pauses for this long (the part not already paused). */
  transportThrottled(transport: string, pausedMs: number): void;
  /** The rate a transport holds on this node (max_tps, or its share of max_tps_global). */
  transportRate(transport: string, tps: number): void;
  /** A delivery receipt or status callback: delivered, undelivered, or unmatched (no such message). */
  receipt(transport: string, outcome: 'delivered' | 'undelivered' | 'unmatched'): void;
  /** A send refused by an application's anti-fraud guards (country, prefix, premium, ip, breaker...). */
  securityRefusal(guard: string): void;
  /** An audit-log entry that could not be written (the request itself was served). */
  auditFailure(): void;
  /** An attempt to deliver an event to a webhook subscriber (or a Twilio Verify webhook), by how it ended. */
  eventDelivery(outcome: DeliveryOutcomeLabel): void;
  /** A message a transport took, with what it cost (or no known price). */
  spend(transport: string, price: MessagePrice): void;
  /** A send refused by a budget cap, or a cap's spend crossing a threshold (80, 100 %). */
  budget(scope: string, period: string, event: 'refused' | 'threshold_80' | 'threshold_100'): void;
}

export const noopMetrics: Metrics = {
  pinSent() {},
  verification() {},
  rateLimited() {},
  delivery() {},
  transportLatency() {},
  deliveryLatency() {},
  transportThrottled() {},
  transportRate() {},
  receipt() {},
  securityRefusal() {},
  auditFailure() {},
  eventDelivery() {},
  spend() {},
  budget() {},
};

export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly sends: Counter<'channel' | 'kind' | 'status'>;
  private readonly verifications: Counter<'channel' | 'outcome'>;
  private readonly refusals: Counter<'limit'>;
  private readonly deliveries: Counter<'channel' | 'transport' | 'outcome'>;
  private readonly deliverySeconds: Histogram<'channel' | 'transport'>;
  private readonly acceptedToTransportSeconds: Histogram<'channel' | 'transport'>;
  private readonly throttledSeconds: Counter<'transport'>;
  private readonly throttles: Counter<'transport'>;
  private readonly transportRates: Gauge<'transport'>;
  private readonly receipts: Counter<'transport' | 'outcome'>;
  private readonly securityRefusals: Counter<'guard'>;
  private readonly auditFailures: Counter;
  private readonly eventDeliveries: Counter<'outcome'>;
  private readonly spendTotal: Counter<'currency' | 'country' | 'transport'>;
  private readonly unpriced: Counter<'country' | 'transport'>;
  private readonly budgetEvents: Counter<'scope' | 'period' | 'event'>;
  readonly httpSeconds: Histogram<'method' | 'route' | 'status'>;

  constructor(options: { outboxDepth: () => Promise<number>; nodeId: string; oldestPendingAgeMs?: () => Promise<number> }) {
    this.registry.setDefaultLabels({ node: options.nodeId });
    collectDefaultMetrics({ register: this.registry, prefix: 'twofa_process_' });
    const registers = [this.registry];
    this.sends = new Counter({ name: 'twofa_pin_sends_total', help: 'PIN sends and resends accepted, by channel; status queued or not_sent (channel off).', labelNames: ['channel', 'kind', 'status'], registers });
    this.verifications = new Counter({ name: 'twofa_verifications_total', help: 'Counted verification attempts by outcome.', labelNames: ['channel', 'outcome'], registers });
    this.refusals = new Counter({ name: 'twofa_rate_limit_refusals_total', help: 'Requests refused by a limit (sendPinPerApplicationLimit, sendPinPerPhoneNumberLimit, verifyPinLimit; auth_failures_ip, auth_failures_prefix: TWOFA_AUTH_FAILURE_LIMIT).', labelNames: ['limit'], registers });
    this.deliveries = new Counter({ name: 'twofa_deliveries_total', help: 'Delivery outcomes: delivered, retried (an attempt failed, another follows), failed (given up), cancelled (the PIN ended first).', labelNames: ['channel', 'transport', 'outcome'], registers });
    this.deliverySeconds = new Histogram({ name: 'twofa_delivery_duration_seconds', help: 'Time a transport took to accept or refuse a message, per call (waiting for its window, rate or a pause not included).', labelNames: ['channel', 'transport'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers });
    this.acceptedToTransportSeconds = new Histogram({
      name: 'twofa_delivery_latency_seconds', help: 'Time to the phone: from the API accepting a message to its transport (the provider) accepting it, retries included.',
      labelNames: ['channel', 'transport'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300], registers,
    });
    this.throttledSeconds = new Counter({ name: 'twofa_transport_throttled_seconds_total', help: 'Time a transport spent paused because its provider said "not now" (HTTP 429/503, SMPP throttling).', labelNames: ['transport'], registers });
    this.throttles = new Counter({ name: 'twofa_transport_throttled_total', help: 'Answers of "not now" (HTTP 429/503, SMPP throttling) that paused a transport.', labelNames: ['transport'], registers });
    this.transportRates = new Gauge({ name: 'twofa_transport_max_tps', help: 'The rate a transport holds on this node: its max_tps, or its share of max_tps_global among the live nodes.', labelNames: ['transport'], registers });
    this.receipts = new Counter({ name: 'twofa_delivery_receipts_total', help: 'Delivery receipts and provider status callbacks: delivered, undelivered, or unmatched.', labelNames: ['transport', 'outcome'], registers });
    this.securityRefusals = new Counter({ name: 'twofa_security_refusals_total', help: 'Sends refused by an application\'s anti-fraud guards, by guard: country, prefix, premium_number, ip_limit, prefix_limit, conversion_breaker.', labelNames: ['guard'], registers });
    this.auditFailures = new Counter({ name: 'twofa_audit_write_failures_total', help: 'Audit-log entries that could not be written.', registers });
    this.eventDeliveries = new Counter({ name: 'twofa_event_deliveries_total', help: 'Event webhook deliveries by outcome: delivered, retried (another attempt follows), failed (given up), cancelled (the subscription went away).', labelNames: ['outcome'], registers });
    this.spendTotal = new Counter({ name: 'twofa_spend_total', help: 'What the messages taken by transports cost, in units of the currency (price list x SMS parts, or the provider\'s reported price), at the time they were taken.', labelNames: ['currency', 'country', 'transport'], registers });
    this.unpriced = new Counter({ name: 'twofa_unpriced_messages_total', help: 'Messages taken by a transport with no known price (no line of TWOFA_PRICES_FILE matched): counted in no budget.', labelNames: ['country', 'transport'], registers });
    this.budgetEvents = new Counter({ name: 'twofa_budget_events_total', help: 'Budget caps: sends refused (refused) and spend crossing 80 % or 100 % of a cap (threshold_80, threshold_100), by scope (account, application) and period (daily, monthly).', labelNames: ['scope', 'period', 'event'], registers });
    this.httpSeconds = new Histogram({ name: 'twofa_http_request_duration_seconds', help: 'HTTP request latency by route.', labelNames: ['method', 'route', 'status'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1], registers });
    new Gauge({
      name: 'twofa_outbox_pending', help: 'Messages waiting for delivery (queued or awaiting a retry).', registers,
      async collect() {
        this.set(await options.outboxDepth());
      },
    });
    const oldestPendingAgeMs = options.oldestPendingAgeMs;
    if (oldestPendingAgeMs !== undefined) {
      new Gauge({
        name: 'twofa_outbox_oldest_age_seconds', help: 'Age of the oldest message waiting for delivery, since the API accepted it (0 when none waits).', registers,
        async collect() {
          this.set((await oldestPendingAgeMs()) / 1000);
        },
      });
    }
  }

  pinSent(channel: Channel, kind: 'send' | 'resend', queued: boolean): void {
    this.sends.inc({ channel, kind, status: queued ? 'queued' : 'not_sent' });
  }

  verification(channel: Channel, outcome: VerifyOutcomeLabel): void {
    this.verifications.inc({ channel, outcome });
  }

  rateLimited(limit: string): void {
    this.refusals.inc({ limit });
  }

  delivery(channel: Channel, transport: string, outcome: DeliveryOutcomeLabel): void {
    this.deliveries.inc({ channel, transport, outcome });
  }

  receipt(transport: string, outcome: 'delivered' | 'undelivered' | 'unmatched'): void {
    this.receipts.inc({ transport, outcome });
  }

  securityRefusal(guard: string): void {
    this.securityRefusals.inc({ guard });
  }

  auditFailure(): void {
    this.auditFailures.inc();
  }

  eventDelivery(outcome: DeliveryOutcomeLabel): void {
    this.eventDeliveries.inc({ outcome });
  }

  spend(transport: string, price: MessagePrice): void {
    const country = price.country ?? 'none';
    if (price.amount === null || price.currency === null) this.unpriced.inc({ country, transport });
    else this.spendTotal.inc({ currency: price.currency, country, transport }, price.amount / MICROS_PER_UNIT);
  }

  budget(scope: string, period: string, event: 'refused' | 'threshold_80' | 'threshold_100'): void {
    this.budgetEvents.inc({ scope, period, event });
  }

  transportLatency(channel: Channel, transport: string, durationMs: number): void {
    this.deliverySeconds.observe({ channel, transport }, durationMs / 1000);
  }

  deliveryLatency(channel: Channel, transport: string, durationMs: number): void {
    this.acceptedToTransportSeconds.observe({ channel, transport }, Math.max(0, durationMs) / 1000);
  }

  transportRate(transport: string, tps: number): void {
    this.transportRates.set({ transport }, tps);
  }

  transportThrottled(transport: string, pausedMs: number): void {
    this.throttles.inc({ transport });
    this.throttledSeconds.inc({ transport }, pausedMs / 1000);
  }
}
