// The port between the outbox worker and whatever carries a message to its recipient (the local
// inbox, a webhook, later SMTP/SMPP/HTTP providers). Transports never see the database: the worker
// hands them a message rendered in memory and records the outcome itself.
import type { Price } from '../domain/prices.js';
import type { RegulatoryFields, SenderCandidates } from '../domain/routes.js';
import type { Channel } from '../store/store.js';

export interface OutgoingMessage {
  channel: Channel;
  /** The PIN's destination: international phone digits, or an email address. */
  to: string;
  from?: string;
  /** SMS text, text to speak for voice, or the plain-text part of an email. */
  text?: string;
  subject?: string;
  html?: string;
  pinId: string;
  applicationId: string;
  messageId: string;
  accountId: string;
  /**
   * Identifies this message across delivery attempts (the outbox row id), so a transport that can
   * send an idempotency key (the webhook's `webhook-id`) lets the receiver drop the duplicate that an
   * at-least-once outbox produces when a worker dies between the provider's answer and recording it.
   */
  deliveryId?: string;
  /**
   * Names of route members not to try for this message (failover routes skip them): those a delivery
   * receipt already reported undeliverable for this PIN. Other transports ignore it.
   */
  skipTransports?: string[];
  /**
   * For the voice channel: what a transport needs to speak the message itself (the PIN read
   * character by character, in the template's language and pace), rendered in memory at delivery
   * time like `text`. Absent for SMS and email.
   */
  voice?: VoiceContent;
  /**
   * For whatsapp and telegram: the PIN alone, which is all that travels (Meta's authentication
   * template and the Telegram Gateway write the text around it). `text` is still rendered, for log://.
   */
  code?: string;
  /** When the PIN expires (UNIX ms): the Telegram Gateway is told how long the message is worth delivering. */
  expiresAt?: number;
  /**
   * The senders that may apply, each from its own place (the request, the application's sender for
   * the country, the template), for a routes table to choose among (domain/routes.ts chooseSender);
   * `from` already holds the one a transport without routes uses.
   */
  senders?: SenderCandidates;
  /** Regulatory fields of the destination's country (India's DLT ids), set by the route: transports that take them send them. */
  regulatory?: RegulatoryFields;
}

/** The parts of an SMS/voice template a voice transport speaks, plus the PIN (see voice/spoken-text.ts). */
export interface VoiceContent {
  pin: string;
  /** The template's `language` as stored (`en`, `pt_pt`, ...); the hyphenated spelling is accepted too. */
  language: string;
  /** 0.5 to 2; null for the voice's normal pace. */
  speechRate: number | null;
  voiceName: string | null;
  /** Keys that replay the message when the callee presses them, e.g. `1#`. */
  repeatDtmf: string | null;
  /** The template's messageText as written: `{{pin}}` and the other placeholders in place. */
  template: string;
  /** Values for the placeholders other than `{{pin}}`, from the send request. */
  placeholders: Record<string, string>;
}

/**
 * `retryable` says whether the same message may succeed later (provider down, timeout, throttled);
 * a permanent refusal (bad number, rejected request) is recorded as failed at once.
 */
export type DeliveryResult =
  /**
   * `transport`: the name of the transport that accepted it, when a route chose among several (its
   * kind, `smpp`, `infobip`, ...: the name its receipts carry).
   * `named`: the operator's name of the named transport that accepted it (TWOFA_TRANSPORT_<NAME>), when
   * one did: the name its price list lines and the spend statistics go by.
   * `price`: what the provider's answer said the whole message costs (Vonage's message-price,
   * Telegram's request_cost, Twilio's price when already set); it overrides the price list.
   */
  | {
    ok: true; providerMessageId?: string; transport?: string; named?: string; price?: Price;
    /** When a routes table chose the transport: the named transport that took it and the destination's country (conversion counters). */
    routed?: RoutedDelivery;
  }
  /**
   * `byRecipient`: the transport worked and the recipient did not take the message (a busy line, an
   * unanswered call), so routes must not count it against the transport's health.
   */
  | { ok: false; retryable: boolean; error: string; byRecipient?: boolean; throttled?: Throttled };

/**
 * The provider said "not now" to this message (HTTP 429 or 503, SMPP ESME_RTHROTTLED or ESME_RMSGQFUL):
 * it did not take it, and the transport's pacer slows down and sends it again (transport-pacer.ts).
 * `retryAfterMs`: how long the provider asked to wait (Retry-After), when it said.
 */
export interface Throttled {
  retryAfterMs?: number | undefined;
}

export interface Transport {
  /** Short name for logs and metrics, e.g. `log` or `webhook`. */
  readonly name: string;
  send(message: OutgoingMessage): Promise<DeliveryResult>;
  /** Releases connections (SMTP pools, SMPP binds) at shutdown. */
  close?(): Promise<void>;
  /**
   * Its in-flight window and rate (max_in_flight, max_tps): set on every transport a DSN names
   * (dsn.ts), absent on routes, which send through their members' pacers.
   */
  pacer?: Pacing;
}

/**
 * What the worker and the routes use of a transport's pacer (transport-pacer.ts TransportPacer, which
 * imports this module's types: the pacer is named here by what it does, not by its class).
 */
export interface Pacing {
  /** The transport's name, for the metrics. */
  readonly transport: string;
  readonly maxInFlight: number;
  /** The rate this node holds: max_tps, or its share of max_tps_global when that is lower. */
  readonly maxTps: number | undefined;
  readonly globalTps: number | undefined;
  /** Runs one send within the window and the rate; a throttled answer pauses and sends it again. */
  run(send: () => Promise<DeliveryResult>, notAfter?: number): Promise<DeliveryResult>;
  /** Holds this node's share of max_tps_global among `nodes` live nodes. */
  shareGlobalRate(nodes: number): void;
}

/**
 * A provider's later word on a message it accepted: an SMPP delivery receipt, or a status callback
 * of an HTTP provider. Matched to the PIN by the transport name and the provider's message id.
 */
export interface DeliveryReceipt {
  transport: string;
  providerMessageId: string;
  status: 'delivered' | 'undelivered';
  /** Provider's error code or status text, for undelivered messages. */
  error?: string;
  /** When the provider says it happened (UNIX ms), or when the receipt arrived. */
  at: number;
  /** What the provider says the whole message cost (Infobip's delivery reports): it replaces the price list's. */
  price?: Price;
}

/** The named transport (TWOFA_TRANSPORT_<NAME>) a routes table delivered a message through. */
export interface RoutedDelivery {
  transport: string;
  country: string;
}

export type ReceiptListener = (receipt: DeliveryReceipt) => void;
