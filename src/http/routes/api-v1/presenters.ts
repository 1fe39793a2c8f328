// Engine records as the answers of twofa's own API under /api/v1 (camelCase, times in UNIX
// milliseconds unless a field says ISO 8601): every /api/v1 body that is more than a service's value
// as it is is made here. The schemas they answer with are in schemas/api-v1.ts.
import { formatMicros } from '../../../domain/money.js';
import type { MessagePriceRecord } from '../../../store/price-store.js';
import type { MessagePriceSchema } from '../../schemas/prices.js';
import type { LocaleText } from '../../../domain/template-locales.js';
import type { Static } from 'typebox';
import { accountSid, apiKeySid } from '../../../domain/twilio-sids.js';
import type { AuditPage } from '../../../service/audit-log.js';
import type { Principal } from '../../../service/context.js';
import type { PinPage } from '../../../service/console-pins.js';
import type { Me } from '../../../service/console-keys.js';
import type { PinDetails } from '../../../service/delivery-tracking.js';
import type { WebhookView } from '../../../service/webhooks.js';
import type { AccountApiKey } from '../../../store/console-store.js';
import type { VonageApplicationRow } from '../../../store/vonage-store.js';
import type { VonageApplicationView } from '../../../service/vonage-applications.js';
import type { EmailTemplateRecord } from '../../../store/store.js';
import type {
  ApiKeySchema, AuditPageSchema, CreatedApiKeySchema, CreatedWebhookResponseSchema, EmailTemplateResponseSchema, MeResponseSchema,
  PinDetailsResponseSchema, PinListResponseSchema, TwilioAuthTokenSchema,
} from '../../schemas/api-v1.js';

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toEmailTemplateResponse(t: EmailTemplateRecord): Static<typeof EmailTemplateResponseSchema> {
  return { id: t.id, name: t.name, from: t.from, subject: t.subject, html: t.html, text: t.text, createdAt: t.createdAt, updatedAt: t.updatedAt };
}

// --- API keys and the account ---

export function toApiKeyResponse(key: { id: string; keyPrefix: string; label: string | null; scopes: string[]; createdAt: number; revokedAt: number | null }): Static<typeof ApiKeySchema> {
  return { id: key.id, prefix: key.keyPrefix, label: key.label, scopes: key.scopes, createdAt: key.createdAt, revokedAt: key.revokedAt };
}

/** POST /api/v1/keys: the key itself is in this answer only. */
export function toCreatedApiKeyResponse({ key, record }: { key: string; record: AccountApiKey }): Static<typeof CreatedApiKeySchema> {
  return { ...toApiKeyResponse(record), key };
}

/** GET /api/v1/me: with the SIDs the Twilio dialect's HTTP Basic takes for this account and key. */
export function toMeResponse(principal: Principal, me: Me): Static<typeof MeResponseSchema> {
  return { accountName: me.accountName, accountSid: accountSid(principal.accountId), apiKeySid: apiKeySid(principal.keyId), key: toApiKeyResponse(me.key) };
}

export function toTwilioAuthTokenResponse(principal: Principal, authToken: string): Static<typeof TwilioAuthTokenSchema> {
  return { accountSid: accountSid(principal.accountId), authToken };
}

// --- PINs (never the PIN itself) ---

export function toMessagePrice(m: MessagePriceRecord): Static<typeof MessagePriceSchema> {
  return {
    deliveryId: m.deliveryId, channel: m.channel, transport: m.transport, sentAt: m.at, country: m.country, segments: m.segments,
    price: m.amount === null || m.currency === null ? null : { amount: formatMicros(m.amount), currency: m.currency }, priceSource: m.source,
  };
}

export function toPinDetailsResponse({ pin, state, history, nextResendAt, workflow, risk, assessment, messages }: PinDetails): Static<typeof PinDetailsResponseSchema> {
  return {
    pinId: pin.id, applicationId: pin.applicationId, messageId: pin.messageId, channel: pin.channel, to: pin.destination, state,
    attemptsRemaining: pin.attemptsLeft, createdAt: pin.createdAt, expiresAt: pin.expiresAt, verifiedAt: pin.verifiedAt, sendCount: pin.sendCount,
    testNumber: pin.testNumber,
    delivery: {
      status: pin.deliveryStatus, transport: pin.deliveryTransport, providerMessageId: pin.providerMessageId,
      sentAt: pin.sentAt, deliveredAt: pin.deliveredAt, error: pin.deliveryError,
    },
    history,
    messages: messages.map(toMessagePrice),
    ...(risk ? { risk } : {}),
    ...(assessment ? { assessment } : {}),
    nextResendAt: isoOrNull(nextResendAt),
    ...(workflow.length > 0 ? {
      workflow: workflow.map((s) => ({ step: s.step, channel: s.channel, state: s.state, dueAt: isoOrNull(s.dueAt), reason: s.reason })),
    } : {}),
  };
}

export function toPinListResponse(page: PinPage): Static<typeof PinListResponseSchema> {
  return {
    pins: page.pins.map((p) => ({
      pinId: p.id, applicationId: p.applicationId, applicationName: p.applicationName, messageId: p.messageId, channel: p.channel,
      to: p.destination, country: p.country, state: p.state, attemptsRemaining: p.attemptsLeft, createdAt: p.createdAt,
      expiresAt: p.expiresAt, verifiedAt: p.verifiedAt, deliveryStatus: p.deliveryStatus, sentAt: p.sentAt, deliveredAt: p.deliveredAt,
      sendCount: p.sendCount, testNumber: p.testNumber, dialect: p.dialect,
    })),
    nextCursor: page.nextCursor,
  };
}

// --- webhook subscriptions ---

/** POST /api/v1/webhooks: the signing secret is in this answer only. */
export function toCreatedWebhookResponse({ webhook, secret }: { webhook: WebhookView; secret: string }): Static<typeof CreatedWebhookResponseSchema> {
  return { ...webhook, secret };
}

// --- audit ---

/** The caller's own entries: the account id they all share is left out. */
export function toAuditPageResponse(page: AuditPage): Static<typeof AuditPageSchema> {
  return {
    entries: page.entries.map(({ accountId, ...entry }) => { void accountId; return entry; }),
    next: page.next,
  };
}

export function toVonageApplication(row: VonageApplicationRow, signatureSecret?: string) {
  return {
    applicationId: row.applicationId, publicKey: row.publicKey, callbackUrl: row.callbackUrl, signatureSecretSet: row.signatureSecretCiphertext !== null,
    ...(signatureSecret !== undefined ? { signatureSecret } : {}), updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

/** An answer that may show a secret it set. */
export function toVonageApplicationView(view: VonageApplicationView) {
  return toVonageApplication(view.row, view.signatureSecret);
}

export function toTemplateText(t: LocaleText) {
  return { id: t.id, locale: t.locale, channel: t.channel, text: t.text, createdAt: new Date(t.createdAt).toISOString(), updatedAt: new Date(t.updatedAt).toISOString() };
}
