// The events an account can subscribe to (POST /api/v1/webhooks) and the body each one is sent as.
// A body never holds the PIN, the rendered text or the full destination: an event travels to a URL
// the account chose, is logged by its receiver and kept in its queues, none of which should become a
// second copy of the phone numbers and addresses the PINs went to (see docs/api.md, "Events").

import type { RiskSummary } from './risk-score.js';

export const PIN_EVENT_TYPES = ['pin.sent', 'pin.delivered', 'pin.failed', 'pin.verified', 'pin.expired', 'pin.locked'] as const;
export type PinEventType = (typeof PIN_EVENT_TYPES)[number];
/** Events about the account rather than one PIN: a budget cap's spend crossing 80 % or reaching 100 % (docs/routing.md#budgets). */
export const ACCOUNT_EVENT_TYPES = ['budget.threshold'] as const;
export type AccountEventType = (typeof ACCOUNT_EVENT_TYPES)[number];
/** Subscribes to every event type, also those added later. */
export const ALL_PIN_EVENTS = '*';
export type PinEventSelector = PinEventType | AccountEventType | typeof ALL_PIN_EVENTS;
export const PIN_EVENT_SELECTORS: readonly PinEventSelector[] = [...PIN_EVENT_TYPES, ...ACCOUNT_EVENT_TYPES, ALL_PIN_EVENTS];

export function isPinEventSelector(value: string): value is PinEventSelector {
  return (PIN_EVENT_SELECTORS as readonly string[]).includes(value);
}

/** Whether a subscription to `selectors` receives events of `type`. */
export function subscribesTo(selectors: readonly string[], type: PinEventType | AccountEventType): boolean {
  return selectors.includes(type) || selectors.includes(ALL_PIN_EVENTS);
}

export interface PinEventData {
  pinId: string;
  applicationId: string;
  /** The 2FA message template the PIN was sent with (Infobip's messageId). */
  messageId: string;
  channel: string;
  /** The destination, masked as in the logs (`4179****727`, `a***@example.com`). */
  to: string;
  /**
   * pin.sent, pin.delivered, pin.failed: the delivery status (sent, delivered, undelivered, failed);
   * pin.verified, pin.expired, pin.locked: the PIN's state (verified, expired, locked).
   */
  status: string;
  /** Why delivery failed (pin.failed), as recorded on the PIN. */
  error?: string;
  /** Verification attempts left (pin.verified, pin.expired, pin.locked). */
  attemptsRemaining?: number;
  /** The transport that took the message (pin.sent, pin.delivered, pin.failed). */
  transport?: string;
  /** Present (true) only for a PIN sent to one of the account's test numbers, so receivers can leave it out of conversion figures. */
  testNumber?: true;
  /** The risk assessment the PIN was sent under (absent when its application scores nothing): score, decision and the signals that made it. */
  risk?: RiskSummary;
}

/** `{type, timestamp, data}`: the Standard Webhooks payload shape. */
export interface PinEvent {
  type: PinEventType;
  /** ISO 8601, when the event happened. */
  timestamp: string;
  data: PinEventData;
}

export function pinEventBody(type: PinEventType, at: number, data: PinEventData): string {
  const event: PinEvent = { type, timestamp: new Date(at).toISOString(), data };
  return JSON.stringify(event);
}

/** budget.threshold: a cap's spend crossed `level` % (80), or reached its cap or refused a send (100). */
export interface BudgetThresholdData {
  scope: 'account' | 'application';
  /** The application's id (scope application), else null. */
  applicationId: string | null;
  period: 'daily' | 'monthly';
  /** The country of a per-country cap; null: the cap of every message. */
  country: string | null;
  currency: string;
  /** Decimal strings, as the budget API writes them. */
  cap: string;
  spent: string;
  level: 80 | 100;
  /** ISO 8601 start of the day or month the cap counts. */
  periodStart: string;
}

export function budgetEventBody(at: number, data: BudgetThresholdData): string {
  return JSON.stringify({ type: 'budget.threshold', timestamp: new Date(at).toISOString(), data });
}
