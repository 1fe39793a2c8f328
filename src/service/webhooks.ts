// Use cases of webhook subscriptions (/api/v1/webhooks): an account names a URL and the PIN events it
// wants; events are signed with the subscription's `whsec_` secret (Standard Webhooks) and delivered
// by the event worker. The secret is shown once, in the answer to create; at rest it is encrypted
// with a key derived from TWOFA_SECRET, as PIN ciphertexts are.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { checkWebhookHost, type WebhookAddressPolicy } from '../delivery/webhook/webhook-address-guard.js';
import { parseWebhookSecret, WEBHOOK_SECRET_PREFIX } from '../delivery/webhook/webhook-signature.js';
import { FieldErrors, fail, ok, type Result } from '../domain/errors.js';
import { generateResourceId } from '../domain/pin-generation.js';
import type { PinKeyring } from '../domain/pin-secrets.js';
import { ALL_PIN_EVENTS, isPinEventSelector, type PinEventSelector } from '../domain/pin-events.js';
import type { WebhookSubscriptionChanges, WebhookSubscriptionRecord } from '../store/event-store.js';
import type { Store } from '../store/store.js';
import type { Principal, ServiceContext } from './context.js';

export const WEBHOOK_URL_MAX = 2048;
/** Every subscription costs a row per event: a bound keeps one PIN's events bounded too. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;

export interface WebhookInput {
  url: string;
  events: string[];
  enabled?: boolean;
  secret?: string;
}

export type WebhookUpdateInput = Partial<WebhookInput>;

export interface WebhookView {
  id: string;
  url: string;
  events: PinEventSelector[];
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);

function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * https:// to public addresses. With TWOFA_WEBHOOK_ALLOW_PRIVATE any address is accepted, and
 * http:// to this machine too (a receiver beside the service, or a test). Events carry no PIN, but
 * their signature and content still deserve TLS on any real network. The host's addresses are
 * checked here and again at every delivery (src/delivery/webhook/webhook-address-guard.ts).
 */
export async function checkWebhookUrl(raw: string, policy: WebhookAddressPolicy): Promise<{ ok: true; url: string } | { ok: false; error: string }> {
  if (raw.length > WEBHOOK_URL_MAX) return { ok: false, error: `must be at most ${WEBHOOK_URL_MAX} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, error: 'must be an absolute URL, e.g. https://hooks.example.com/twofa' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, error: 'must be an https:// URL' };
  if (url.protocol === 'http:' && !(policy.allowPrivate && isLoopbackHost(url.hostname))) {
    return { ok: false, error: policy.allowPrivate ? 'must be https:// (http:// is accepted only for localhost, 127.0.0.0/8 and [::1])' : 'must be an https:// URL' };
  }
  if (url.username !== '' || url.password !== '') return { ok: false, error: 'must not carry user:password@; receivers authenticate events by their signature' };
  if (url.hash !== '') return { ok: false, error: 'must not have a #fragment' };
  const refused = await checkWebhookHost(url.hostname, policy);
  if (refused !== undefined) return { ok: false, error: refused };
  return { ok: true, url: url.href };
}

function checkEvents(events: string[], errors: FieldErrors): PinEventSelector[] {
  if (events.length === 0) errors.add('events', 'must name at least one event type, or *');
  const unknown = events.filter((e) => !isPinEventSelector(e));
  if (unknown.length > 0) errors.add('events', `unknown event type(s): ${unknown.join(', ')}`);
  const selectors = [...new Set(events.filter(isPinEventSelector))];
  // `*` covers everything, also event types added later: keep it alone.
  return selectors.includes(ALL_PIN_EVENTS) ? [ALL_PIN_EVENTS] : selectors;
}

function checkSecret(secret: string, errors: FieldErrors): void {
  const parsed = parseWebhookSecret(secret);
  if (!parsed.ok) errors.add('secret', parsed.error);
}

/** A new `whsec_` secret: 32 random bytes, as Standard Webhooks suggests (24 to 64). */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

function webhookNotFound(id: string) {
  return fail('WEBHOOK_NOT_FOUND', `Webhook subscription ${id} not found`);
}

export function toWebhookView(s: WebhookSubscriptionRecord): WebhookView {
  return { id: s.id, url: s.url, events: s.events.filter(isPinEventSelector), enabled: s.enabled, createdAt: s.createdAt, updatedAt: s.updatedAt };
}

/** The subscription and its secret, which this answer alone ever shows. */
export async function createWebhook(ctx: ServiceContext, principal: Principal, input: WebhookInput): Promise<Result<{ webhook: WebhookView; secret: string }>> {
  const errors = new FieldErrors();
  const url = await checkWebhookUrl(input.url, ctx.webhookAddresses);
  if (!url.ok) errors.add('url', url.error);
  const events = checkEvents(input.events, errors);
  if (input.secret !== undefined) checkSecret(input.secret, errors);
  if (!errors.empty || !url.ok) return errors.result();

  const existing = await ctx.store.events.listSubscriptions(principal.accountId);
  if (existing.length >= MAX_WEBHOOKS_PER_ACCOUNT) {
    return fail('WEBHOOK_LIMIT_REACHED', `An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhook subscriptions; delete one first`);
  }
  const id = generateResourceId();
  const secret = input.secret ?? generateWebhookSecret();
  const now = ctx.clock();
  const record: WebhookSubscriptionRecord = {
    id, accountId: principal.accountId, url: url.url, events, enabled: input.enabled ?? true,
    secretCiphertext: ctx.keyring.encryptWebhookSecret(id, secret), createdAt: now, updatedAt: now,
  };
  await ctx.store.events.insertSubscription(record);
  return ok({ webhook: toWebhookView(record), secret });
}

export async function listWebhooks(ctx: ServiceContext, principal: Principal): Promise<WebhookView[]> {
  return (await ctx.store.events.listSubscriptions(principal.accountId)).map(toWebhookView);
}

export async function getWebhook(ctx: ServiceContext, principal: Principal, id: string): Promise<Result<WebhookView>> {
  const found = await ctx.store.events.getSubscription(principal.accountId, id);
  return found ? ok(toWebhookView(found)) : webhookNotFound(id);
}

/** Merges: fields left out keep their values. A new `secret` replaces the old one (rotation). */
export async function updateWebhook(ctx: ServiceContext, principal: Principal, id: string, input: WebhookUpdateInput): Promise<Result<WebhookView>> {
  const existing = await ctx.store.events.getSubscription(principal.accountId, id);
  if (!existing) return webhookNotFound(id);
  const errors = new FieldErrors();
  const changes: WebhookSubscriptionChanges = {};
  if (input.url !== undefined) {
    const url = await checkWebhookUrl(input.url, ctx.webhookAddresses);
    if (url.ok) changes.url = url.url;
    else errors.add('url', url.error);
  }
  if (input.events !== undefined) changes.events = checkEvents(input.events, errors);
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  if (input.secret !== undefined) {
    checkSecret(input.secret, errors);
    changes.secretCiphertext = ctx.keyring.encryptWebhookSecret(id, input.secret);
  }
  if (!errors.empty) return errors.result();
  const updated = await ctx.store.events.updateSubscription(principal.accountId, id, changes, ctx.clock());
  return updated ? ok(toWebhookView(updated)) : webhookNotFound(id);
}

/** Deletes the subscription; events still waiting for it are dropped. */
export async function deleteWebhook(ctx: ServiceContext, principal: Principal, id: string): Promise<Result<null>> {
  const deleted = await ctx.store.events.deleteSubscription(principal.accountId, id);
  return deleted ? ok(null) : webhookNotFound(id);
}

/**
 * At start: re-encrypts subscription secrets made under a previous TWOFA_SECRET with the current
 * one, so that TWOFA_PREVIOUS_SECRETS can drop it once its PINs have expired (as docs/configuration.md says)
 * without breaking the subscriptions. A secret no configured key can decrypt is reported: its events
 * fail until the account sets a new secret (PUT /api/v1/webhooks/{id} with `secret`).
 */
export async function reencryptWebhookSecrets(store: Store, keyring: PinKeyring, logger: Logger): Promise<void> {
  const current = `${keyring.currentKeyId}:`;
  let unreadable = 0;
  for (const { id, secretCiphertext } of await store.events.listSecretCiphertexts()) {
    if (secretCiphertext.startsWith(current)) continue;
    const secret = keyring.decryptWebhookSecret(id, secretCiphertext);
    if (secret === null) {
      unreadable += 1;
      continue;
    }
    await store.events.replaceSecretCiphertext(id, secretCiphertext, keyring.encryptWebhookSecret(id, secret));
  }
  if (unreadable > 0) {
    logger.warn({ subscriptions: unreadable }, 'webhook subscription secrets made under a TWOFA_SECRET that is no longer configured: their events fail until a new secret is set (PUT /api/v1/webhooks/{id} with "secret")');
  }
}
