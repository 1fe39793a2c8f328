// Use cases of sending and resending PINs. A send checks the whole request, then in one
// transaction consumes the send limits and writes the PIN with its outbox row; the delivery worker
// renders and delivers it afterwards, so a crash never loses an acknowledged send.
import { randomUUID } from 'node:crypto';
import { normalizeEmailAddress, normalizePhoneNumber, phoneCountry, validateEmailSender } from '../domain/destinations.js';
import { parseDuration, parseRateLimit } from '../domain/durations.js';
import { FieldErrors, fail, ok, type Result } from '../domain/errors.js';
import { generatePin, generatePinId } from '../domain/pin-generation.js';
import { validateSmsSender } from '../domain/sender-ids.js';
import { missingPlaceholders, validatePlaceholderValues } from '../domain/template-rendering.js';
import type { ApplicationRecord, Channel, DeliveryRequest, MessageTemplateRecord, PinRecord, RateLimitCheck, RateLimitOutcome } from '../store/store.js';
import { auditRequest, durably } from './audit-log.js';
import type { Principal, ServiceContext } from './context.js';
import { checkSendGuards, countBreakerSend, guardLimitRefusal } from './security.js';

export interface SendPinInput {
  applicationId: string;
  messageId: string;
  to: string;
  from?: string;
  placeholders?: Record<string, string>;
  landingPagePlaceholders?: Record<string, string>;
}

export interface ResendPinInput {
  placeholders?: Record<string, string>;
  landingPagePlaceholders?: Record<string, string>;
}

export interface SendOutcome {
  pinId: string;
  to: string;
  /** True when the message was durably queued for a transport; false when the channel is off. */
  queued: boolean;
  /** The outbox row's id: Infobip's externalMessageId for delivery tracking. */
  deliveryId: string | undefined;
}

const isPhoneChannel = (channel: Channel) => channel !== 'email';

function checkDestination(channel: Channel, to: string, errors: FieldErrors): string {
  const result = isPhoneChannel(channel) ? normalizePhoneNumber(to) : normalizeEmailAddress(to);
  if (!result.ok) {
    errors.add('to', result.error);
    return to;
  }
  return result.value;
}

function checkPlaceholders(input: ResendPinInput, errors: FieldErrors): void {
  errors.merge(validatePlaceholderValues(input.placeholders ?? {}));
  const landing = validatePlaceholderValues(input.landingPagePlaceholders ?? {});
  for (const [field, messages] of Object.entries(landing)) for (const m of messages) errors.add(field.replace(/^placeholders/, 'landingPagePlaceholders'), m);
}

/** The texts a message will be rendered from, so that a placeholder the request leaves unfilled is caught now, not at delivery. */
async function templateTexts(ctx: ServiceContext, template: MessageTemplateRecord): Promise<string[] | null> {
  if (template.kind === 'sms_voice') return [template.messageText];
  const email = await ctx.store.getEmailTemplate(template.accountId, template.emailTemplateId);
  if (!email) return null;
  return [email.subject, email.html ?? '', email.text ?? ''];
}

async function checkTemplateFilled(ctx: ServiceContext, template: MessageTemplateRecord, placeholders: Record<string, string>, errors: FieldErrors): Promise<void> {
  const texts = await templateTexts(ctx, template);
  if (texts === null) {
    errors.add('messageId', `the email template ${template.kind === 'email' ? template.emailTemplateId : ''} of this message no longer exists`);
    return;
  }
  const missing = [...new Set(texts.flatMap((text) => missingPlaceholders(text, placeholders)))];
  for (const name of missing) errors.add('placeholders', `missing a value for {{${name}}} used by the message template`);
}

/** Infobip's two send limits: per application, and per application and destination. */
function sendLimits(app: ApplicationRecord, destination: string): RateLimitCheck[] {
  const perApp = parseRateLimit(app.configuration.sendPinPerApplicationLimit);
  const perDestination = parseRateLimit(app.configuration.sendPinPerPhoneNumberLimit);
  const checks: RateLimitCheck[] = [];
  if (perDestination) checks.push({ key: `send:to:${app.id}:${destination}`, limit: perDestination.count, windowMs: perDestination.windowMs });
  if (perApp) checks.push({ key: `send:app:${app.id}`, limit: perApp.count, windowMs: perApp.windowMs });
  return checks;
}

export function tooManyRequests(outcome: Extract<RateLimitOutcome, { allowed: false }>, what: string) {
  return fail('TOO_MANY_REQUESTS', `Too many requests: ${what}; retry in ${Math.ceil(outcome.retryAfterMs / 1000)} s`, { retryAfterMs: outcome.retryAfterMs });
}

function refused(ctx: ServiceContext, outcome: Extract<RateLimitOutcome, { allowed: false }>) {
  const guard = guardLimitRefusal(outcome.key);
  if (guard) {
    ctx.metrics.securityRefusal(guard.guard);
    return tooManyRequests(outcome, guard.text);
  }
  const perDestination = outcome.key.startsWith('send:to:');
  ctx.metrics.rateLimited(perDestination ? 'sendPinPerPhoneNumberLimit' : 'sendPinPerApplicationLimit');
  return tooManyRequests(outcome, perDestination ? 'sendPinPerPhoneNumberLimit reached for this destination' : 'sendPinPerApplicationLimit reached for this application');
}

export async function sendPin(ctx: ServiceContext, principal: Principal, channel: Channel, input: SendPinInput): Promise<Result<SendOutcome>> {
  const errors = new FieldErrors();
  const to = checkDestination(channel, input.to, errors);
  if (input.from !== undefined) errors.add('from', isPhoneChannel(channel) ? validateSmsSender(input.from) : validateEmailSender(input.from));
  checkPlaceholders(input, errors);

  const app = await ctx.store.getApplication(principal.accountId, input.applicationId);
  if (!app) errors.add('applicationId', `application ${input.applicationId} does not exist`);
  else if (!app.enabled) errors.add('applicationId', `application ${input.applicationId} is disabled`);
  const template = app ? await ctx.store.getMessageTemplate(principal.accountId, app.id, input.messageId) : undefined;
  if (app && !template) errors.add('messageId', `message ${input.messageId} does not exist in application ${input.applicationId}`);
  if (template) {
    const wanted = isPhoneChannel(channel) ? 'sms_voice' : 'email';
    if (template.kind !== wanted) {
      errors.add('messageId', wanted === 'email' ? 'is an SMS/voice message; send it with /2fa/2/pin or /2fa/2/pin/voice' : 'is an email message; send it with /2fa/2/pin/email');
    } else {
      await checkTemplateFilled(ctx, template, input.placeholders ?? {}, errors);
    }
  }
  if (!errors.empty || !app || !template) return errors.result();

  // The application's anti-fraud guards (off unless turned on): after the body, before the limits.
  const guard = await checkSendGuards(ctx, principal, app, channel, to, ctx.clock());
  if (!guard.ok) {
    await auditRequest(ctx, principal, { event: 'pin.send.refused', applicationId: app.id, destination: to, reason: guard.guard });
    await ctx.store.durable();
    return { ok: false, failure: guard.failure };
  }

  const now = ctx.clock();
  const ttl = parseDuration(app.configuration.pinTimeToLive) ?? 15 * 60_000;
  const pinId = generatePinId();
  const pin = generatePin(template.pinType, template.pinLength);
  const queued = ctx.channelConfigured(channel);
  const deliveryId = queued ? randomUUID() : undefined;
  const request: DeliveryRequest = { placeholders: input.placeholders ?? {}, ...(input.from !== undefined ? { from: input.from } : {}) };
  const outcome = await ctx.store.createPin({
    pin: {
      id: pinId, accountId: principal.accountId, applicationId: app.id, messageId: template.id, channel, destination: to,
      pinHash: ctx.keyring.hashPin(pinId, pin), pinCiphertext: ctx.keyring.encryptPin(pinId, pin),
      attemptsLeft: app.configuration.pinAttempts, allowMultipleVerifications: app.configuration.allowMultiplePinVerifications,
      createdAt: now, expiresAt: now + ttl, deliveryStatus: queued ? 'queued' : 'not_sent',
      country: isPhoneChannel(channel) ? phoneCountry(to) ?? null : null,
    },
    ...(deliveryId ? { outbox: { id: deliveryId, request } } : {}),
  }, [...sendLimits(app, to), ...guard.limits], now);
  if (!outcome.allowed) {
    await auditRequest(ctx, principal, { event: 'pin.send.refused', applicationId: app.id, destination: to, reason: outcome.key.split(':').slice(0, 2).join(':') });
    await ctx.store.durable();
    return refused(ctx, outcome);
  }
  ctx.metrics.pinSent(channel, 'send', queued);
  if (guard.breakerCountry !== undefined && guard.settings) await countBreakerSend(ctx, app, guard.breakerCountry, guard.settings, now);
  await auditRequest(ctx, principal, { event: 'pin.send', applicationId: app.id, pinId, destination: to, reason: channel });
  // The PIN, its message and the audit entry were committed without waiting for the disk: one wait
  // (one fsync shared with the requests in flight) makes them durable before the send is acknowledged.
  await ctx.store.durable();
  if (queued) ctx.messageQueued();
  return ok({ pinId, to, queued, deliveryId });
}

function pinEnded(pinId: string) {
  return fail('BAD_REQUEST', `PIN ${pinId} can no longer be resent: it has been verified, has expired or has run out of attempts; send a new PIN`);
}

export function pinNotFound(pinId: string) {
  return fail('NOT_FOUND', `PIN ${pinId} not found`);
}

/** Resend delivers the same PIN under the same pinId; it never resets the attempts or the expiry. */
export function resendPin(ctx: ServiceContext, principal: Principal, pinId: string, channel: Channel, input: ResendPinInput): Promise<Result<SendOutcome>> {
  // Whatever it answers (the PIN as read, the resend queued, the audit entry) is durable first.
  return durably(ctx.store, () => queueResend(ctx, principal, pinId, channel, input));
}

async function queueResend(ctx: ServiceContext, principal: Principal, pinId: string, channel: Channel, input: ResendPinInput): Promise<Result<SendOutcome>> {
  const pin: PinRecord | undefined = await ctx.store.getPin(principal.accountId, pinId);
  if (!pin) return pinNotFound(pinId);
  if (isPhoneChannel(channel) !== isPhoneChannel(pin.channel)) {
    return fail('BAD_REQUEST', pin.channel === 'email'
      ? `PIN ${pinId} was sent by email; resend it with /2fa/2/pin/${pinId}/resend/email`
      : `PIN ${pinId} was sent to a phone number; resend it with /2fa/2/pin/${pinId}/resend or /resend/voice`);
  }
  // An ended PIN is answered as such before its body is checked: no placeholder can make it resendable.
  // (The store checks again inside the resend's transaction, which is what makes it a race gate.)
  if (pin.pinCiphertext === null || pin.verifiedAt !== null || pin.lockedAt !== null || pin.expiresAt <= ctx.clock()) return pinEnded(pinId);
  const errors = new FieldErrors();
  checkPlaceholders(input, errors);
  const app = await ctx.store.getApplication(principal.accountId, pin.applicationId);
  const template = await ctx.store.getMessageTemplate(principal.accountId, pin.applicationId, pin.messageId);
  if (!app || !template) return pinNotFound(pinId);
  await checkTemplateFilled(ctx, template, input.placeholders ?? {}, errors);
  if (!errors.empty) return errors.result();

  const now = ctx.clock();
  const queued = ctx.channelConfigured(channel);
  const deliveryId = queued ? randomUUID() : undefined;
  const request: DeliveryRequest = { placeholders: input.placeholders ?? {} };
  const outcome = await ctx.store.queueResend(pinId, channel, deliveryId ? { id: deliveryId, request } : undefined, sendLimits(app, pin.destination), now);
  if ('ended' in outcome) return pinEnded(pinId);
  if (!outcome.allowed) {
    await auditRequest(ctx, principal, { event: 'pin.resend.refused', applicationId: pin.applicationId, pinId, destination: pin.destination, reason: outcome.key.split(':').slice(0, 2).join(':') });
    return refused(ctx, outcome);
  }
  ctx.metrics.pinSent(channel, 'resend', queued);
  await auditRequest(ctx, principal, { event: 'pin.resend', applicationId: pin.applicationId, pinId, destination: pin.destination, reason: channel });
  if (queued) ctx.messageQueued();
  return ok({ pinId, to: pin.destination, queued, deliveryId });
}
