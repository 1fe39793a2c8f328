// Use cases of Twilio Verify Webhooks (/v2/Services/{sid}/Webhooks) and of the account's Auth Token
// that signs their events. A webhook names a URL and the event types it wants; the verification
// events (src/domain/twilio-events.ts) are queued in the transaction of the change they report and
// delivered by the event worker, the one that delivers /api/v1/webhooks events, under the same
// address rules (checkWebhookUrl here, the guarded lookup at every delivery).
//
// Twilio signs with the account's Auth Token. twofa keeps API keys only as hashes, so each account
// gets an Auth Token of its own: 32 random hex characters like Twilio's, made at first need (the
// first webhook, or the first time it is shown) and stored only encrypted with the PIN keyring.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { fail, FieldErrors, ok, type Result } from '../domain/errors.js';
import type { PinKeyring } from '../domain/pin-secrets.js';
import { isTwilioEventSelector, ALL_TWILIO_EVENTS } from '../domain/twilio-events.js';
import type { Store } from '../store/store.js';
import type { StoredAuthToken, TwilioWebhookRow } from '../store/twilio-store.js';
import type { Principal, ServiceContext } from './context.js';
import { authTokenDigest } from './twilio-credentials.js';
import { checkWebhookUrl } from './webhooks.js';
import { getService, type TwilioService } from './twilio-services.js';
import { inUnitOfWork } from './unit-of-work.js';

/** Each webhook costs an outbox row per event, as a subscription of /api/v1/webhooks does. */
export const WEBHOOKS_PER_SERVICE_MAX = 20;
export const FRIENDLY_NAME_MAX = 64;
const STATUSES = ['enabled', 'disabled'] as const;
const VERSIONS = ['v1', 'v2'] as const;

export interface WebhookInService {
  service: TwilioService;
  webhook: TwilioWebhookRow;
}

export interface WebhookInput {
  friendlyName?: string;
  eventTypes?: string[];
  webhookUrl?: string;
  status?: string;
  version?: string;
}

function notFound(path: string) {
  return fail('RESOURCE_NOT_FOUND', `The requested resource ${path} was not found`);
}

/** Checks what is given; a change with an error changes nothing. */
async function checked(ctx: ServiceContext, input: WebhookInput): Promise<Result<Partial<TwilioWebhookRow>>> {
  const errors = new FieldErrors();
  const changes: Partial<TwilioWebhookRow> = {};
  if (input.friendlyName !== undefined) {
    if (input.friendlyName.length < 1 || input.friendlyName.length > FRIENDLY_NAME_MAX) errors.add('FriendlyName', `must be 1 to ${FRIENDLY_NAME_MAX} characters`);
    else changes.friendlyName = input.friendlyName;
  }
  if (input.webhookUrl !== undefined) {
    const url = await checkWebhookUrl(input.webhookUrl, ctx.webhookAddresses);
    if (url.ok) changes.webhookUrl = url.url;
    else errors.add('WebhookUrl', url.error);
  }
  if (input.status !== undefined) {
    if ((STATUSES as readonly string[]).includes(input.status)) changes.status = input.status as TwilioWebhookRow['status'];
    else errors.add('Status', 'must be enabled or disabled');
  }
  if (input.version !== undefined) {
    if ((VERSIONS as readonly string[]).includes(input.version)) changes.version = input.version as TwilioWebhookRow['version'];
    else errors.add('Version', 'must be v1 or v2');
  }
  if (!errors.empty) return errors.result();
  if (input.eventTypes !== undefined) {
    const unknown = input.eventTypes.filter((e) => !isTwilioEventSelector(e));
    if (input.eventTypes.length === 0 || unknown.length > 0) {
      return fail('WEBHOOK_EVENT_TYPES_INVALID', unknown.length > 0 ? `Invalid EventTypes: ${unknown.join(', ')}` : 'EventTypes must name at least one event type, or *');
    }
    const types = [...new Set(input.eventTypes)];
    // `*` covers every type, also those added later: keep it alone.
    changes.eventTypes = types.includes(ALL_TWILIO_EVENTS) ? [ALL_TWILIO_EVENTS] : types;
  }
  return ok(changes);
}

export async function createWebhook(ctx: ServiceContext, principal: Principal, serviceSid: string, input: Required<Pick<WebhookInput, 'friendlyName' | 'eventTypes' | 'webhookUrl'>> & WebhookInput): Promise<Result<WebhookInService>> {
  const found = await getService(ctx, principal, serviceSid);
  if (!found.ok) return found;
  const service = found.value;
  const changes = await checked(ctx, input);
  if (!changes.ok) return changes;
  const existing = await ctx.store.twilio.listWebhooks(principal.accountId, service.application.id);
  if (existing.length >= WEBHOOKS_PER_SERVICE_MAX) return fail('SERVICE_WEBHOOKS_FULL', `A service has at most ${WEBHOOKS_PER_SERVICE_MAX} webhooks`);
  // The token that will sign the events exists before the first one does.
  await authToken(ctx, principal.accountId);
  const now = ctx.clock();
  const webhook: TwilioWebhookRow = {
    sid: `YW${randomBytes(16).toString('hex')}`, accountId: principal.accountId, applicationId: service.application.id,
    friendlyName: input.friendlyName, eventTypes: [], webhookUrl: input.webhookUrl, status: 'enabled', version: 'v2', createdAt: now, updatedAt: now,
    ...changes.value,
  };
  await ctx.store.twilio.insertWebhook(webhook);
  return ok({ service, webhook });
}

export async function getWebhook(ctx: ServiceContext, principal: Principal, serviceSid: string, sid: string): Promise<Result<WebhookInService>> {
  const found = await getService(ctx, principal, serviceSid);
  if (!found.ok) return found;
  const webhook = await ctx.store.twilio.getWebhook(principal.accountId, found.value.application.id, sid);
  return webhook ? ok({ service: found.value, webhook }) : notFound(`/Services/${serviceSid}/Webhooks/${sid}`);
}

export async function listWebhooks(ctx: ServiceContext, principal: Principal, serviceSid: string): Promise<Result<WebhookInService[]>> {
  const found = await getService(ctx, principal, serviceSid);
  if (!found.ok) return found;
  const rows = await ctx.store.twilio.listWebhooks(principal.accountId, found.value.application.id);
  return ok(rows.map((webhook) => ({ service: found.value, webhook })));
}

/** Merges: parameters left out keep their values. */
export async function updateWebhook(ctx: ServiceContext, principal: Principal, serviceSid: string, sid: string, input: WebhookInput): Promise<Result<WebhookInService>> {
  const found = await getWebhook(ctx, principal, serviceSid, sid);
  if (!found.ok) return found;
  const changes = await checked(ctx, input);
  if (!changes.ok) return changes;
  const webhook = { ...found.value.webhook, ...changes.value, updatedAt: ctx.clock() };
  await ctx.store.twilio.updateWebhook(webhook);
  return ok({ ...found.value, webhook });
}

/** Deletes the webhook; its events still waiting are dropped. */
export async function deleteWebhook(ctx: ServiceContext, principal: Principal, serviceSid: string, sid: string): Promise<Result<null>> {
  const found = await getService(ctx, principal, serviceSid);
  if (!found.ok) return found;
  return (await ctx.store.twilio.deleteWebhook(principal.accountId, found.value.application.id, sid)) ? ok(null) : notFound(`/Services/${serviceSid}/Webhooks/${sid}`);
}

/** 32 lower-case hex characters, as Twilio's Auth Tokens are: 128 random bits. */
function newAuthToken(): string {
  return randomBytes(16).toString('hex');
}

type TokenContext = Pick<ServiceContext, 'store' | 'keyring' | 'clock'>;

/** The token as stored: encrypted to sign webhook events, and its digest to find its account at a login (never the token itself). */
function storedAuthToken(keyring: PinKeyring, accountId: string, token: string): StoredAuthToken {
  return { ciphertext: keyring.encryptTwilioAuthToken(accountId, token), digest: authTokenDigest(token) };
}

/**
 * The account's Auth Token, made now if it has none. A token that no configured TWOFA_SECRET can
 * decrypt any more is replaced (its events could not be signed anyway).
 */
export async function authToken(ctx: TokenContext, accountId: string): Promise<string> {
  const stored = await ctx.store.twilio.getAuthToken(accountId);
  const existing = stored === undefined ? null : ctx.keyring.decryptTwilioAuthToken(accountId, stored);
  if (existing !== null) return existing;
  if (stored !== undefined) return rotateAuthToken(ctx, accountId);
  const token = newAuthToken();
  const kept = await ctx.store.twilio.ensureAuthToken(accountId, storedAuthToken(ctx.keyring, accountId, token), ctx.clock());
  return ctx.keyring.decryptTwilioAuthToken(accountId, kept) ?? token;
}

/** POST /api/v1/twilio/auth-token: a new Auth Token for the caller's account, audited. */
export function rotateAuthTokenOnRequest(ctx: ServiceContext, principal: Principal): Promise<string> {
  return inUnitOfWork(ctx, principal, async (unit) => {
    const token = await rotateAuthToken(ctx, principal.accountId, ctx.twilioAuthTokenGraceMs);
    unit.audit({ event: 'twilio.auth_token.rotate' });
    return token;
  });
}

/**
 * A new Auth Token: events signed from now on use it (the worker reads it at each attempt). The
 * replaced one stays a valid login for `graceMs` (TWOFA_TWILIO_AUTH_TOKEN_GRACE), so clients can move
 * over, then never again.
 */
export async function rotateAuthToken(ctx: TokenContext, accountId: string, graceMs = 0): Promise<string> {
  const token = newAuthToken();
  const now = ctx.clock();
  await ctx.store.twilio.replaceAuthToken(accountId, storedAuthToken(ctx.keyring, accountId, token), now, graceMs > 0 ? now + graceMs : undefined);
  return token;
}

/**
 * At start, as reencryptWebhookSecrets does for subscription secrets: Auth Tokens encrypted under a
 * previous TWOFA_SECRET move to the current one, and a token stored before tokens were logins gets
 * its digest.
 */
export async function reencryptAuthTokens(store: Store, keyring: PinKeyring, logger: Logger): Promise<void> {
  const current = `${keyring.currentKeyId}:`;
  let unreadable = 0;
  for (const { accountId, tokenCiphertext, tokenDigest } of await store.twilio.listAuthTokens()) {
    if (tokenCiphertext.startsWith(current) && tokenDigest !== null) continue;
    const token = keyring.decryptTwilioAuthToken(accountId, tokenCiphertext);
    if (token === null) {
      unreadable += 1;
      continue;
    }
    await store.twilio.reencryptAuthToken(accountId, storedAuthToken(keyring, accountId, token), tokenCiphertext);
  }
  if (unreadable > 0) logger.warn({ accounts: unreadable }, 'Twilio Auth Tokens made under a TWOFA_SECRET that is no longer configured: rotate them (POST /api/v1/twilio/auth-token) to sign Verify webhook events again');
}
