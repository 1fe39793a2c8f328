// What every use case is given: ports in, nothing global. Tests build one with a fake clock.
import type { RiskMode } from '../domain/risk-score.js';
import type { Routing } from '../delivery/routing/routing.js';
import type { WebhookAddressPolicy } from '../delivery/webhook/webhook-address-guard.js';
import type { PinKeyring } from '../domain/pin-secrets.js';
import type { SecurityProfile } from '../domain/security-profile.js';
import type { Metrics } from '../observability/metrics.js';
import type { Channel, Store } from '../store/store.js';
import type { PriceList } from '../domain/prices.js';
import type { PriceListState } from '../delivery/price-list-file.js';

export interface ServiceContext {
  store: Store;
  keyring: PinKeyring;
  clock: () => number;
  /** Whether a channel has a transport (a `none://` DSN turns one off). */
  channelConfigured: (channel: Channel) => boolean;
  /** Called after a message was queued, so the delivery worker starts at once. */
  messageQueued: () => void;
  metrics: Metrics;
  /** Most SMS parts a rendered SMS may take (TWOFA_SMS_MAX_SEGMENTS): each part is billed. */
  smsMaxSegments: number;
  /**
   * Where each channel's transport delivers: `inbox` (log://, the local inbox that any manage key
   * reads through the API), `real` (a provider or server), `both` (a route with members of each).
   * A channel that is off is missing. Without it (unit tests), no resend is refused for it.
   */
  channelDelivery?: Partial<Record<Channel, ChannelDelivery>>;
  /** TWOFA_SECURITY_PROFILE; unset means `compatible` (Infobip's defaults). */
  securityProfile?: SecurityProfile;
  /** TWOFA_RISK_DEFAULT_MODE: the risk mode of applications that never set one; unset means `enforce`. */
  riskDefaultMode?: RiskMode;
  /** TWOFA_ALLOW_TEST_NUMBERS: test numbers under the strict profile too (service/test-numbers.ts). */
  allowTestNumbers?: boolean;
  /** Which addresses accounts' webhook URLs may point at (TWOFA_WEBHOOK_ALLOW_PRIVATE), and how names are resolved to check them. */
  webhookAddresses: WebhookAddressPolicy;
  /**
   * Called when a PIN ends by verification or lock, so providers that can take back an undelivered
   * message do (the Telegram Gateway). Must return at once: the work happens after the answer.
   */
  pinEnded?: (accountId: string, pinId: string) => void;
  /** TWOFA_TWILIO_AUTH_TOKEN_GRACE: how long a rotated Twilio Auth Token stays a valid login; unset means 0. */
  twilioAuthTokenGraceMs?: number;
  /** Called when a workflow step became due early (a delivery failed), so the scheduler runs it at once. */
  workflowStepDue?: () => void;
  /** The operator's price list (TWOFA_PRICES_FILE); absent: no message has a price and no budget counts. */
  prices?: PriceList;
  /** The price list in force on this node (GET /api/v1/prices). */
  priceListState?: () => PriceListState;
  /** Reads the price list file again (POST /api/v1/prices/reload); throws on an invalid file, keeping the list in force. */
  reloadPrices?: () => Promise<PriceListState>;
  /** The routes table and the named transports (docs/routing.md); absent when no transport is named. */
  routing?: Routing;
  /**
   * The transports a message of `applicationId` on `channel` to `to` would be tried through, in order:
   * named transports as a routes table plans them (the cheapest strategy's order included), else the
   * members of the channel's own DSN by their kind (`smpp`, `log`) (delivery/planned-transport.ts). A
   * budget charges a send the price of the first of them. Absent in unit tests' contexts.
   */
  plannedTransports?: (channel: Channel, to: string, applicationId: string) => Promise<string[]>;
}

export type ChannelDelivery = 'inbox' | 'real' | 'both';

/** The caller, as authenticated from its API key. */
export interface Principal {
  accountId: string;
  keyId: string;
  scopes: readonly string[];
  /** The client's address (X-Forwarded-For only from a trusted proxy), for per-IP limits and the audit log. */
  ip?: string;
}
