// Use cases of Prelude Verify v2, on the engine's PINs (sendPin, resendPin, verifyPin). What Prelude's
// users rely on, beyond the engine:
// - a verification is named by its target; a create while the target has a live PIN is a `retry`:
//   the same PIN sent again under the same id (a resend), counted by the engine's limits like any;
// - a create the engine's limits or anti-fraud guards refuse is an answer, `blocked` with a reason,
//   not an error: nothing was sent and the client is told not to insist;
// - a check names the target too and checks its live PIN: `success`, `failure` (a wrong code, counted)
//   or `expired_or_not_found` (no live PIN: never sent, verified, expired or out of attempts).
// Calls carry no application: each account names the one its Prelude calls use (prelude-settings.ts).
import { normalizeEmailAddress, normalizePhoneNumber, phoneCountry } from '../domain/destinations.js';
import { fail, ok, type Failure, type FailureName, type Result } from '../domain/errors.js';
import { generatePin, generatePinId } from '../domain/pin-generation.js';
import { isDeliverable } from '../domain/pin-lifecycle.js';
import { preludeVerificationId } from '../domain/prelude-ids.js';
import { chosenCodeTooShort } from '../domain/security-profile.js';
import { serviceSid } from '../domain/twilio-sids.js';
import { countryLocale, DEFAULT_LOCALE, twilioLocale } from '../domain/twilio-templates.js';
import { resourceIdOfVonageId } from '../domain/vonage-ids.js';
import type { Channel, PinRecord } from '../store/store.js';
import type { Principal, ServiceContext } from './context.js';
import { profileOf, readMessageTemplate } from './effective-records.js';
import { preludeApplication } from './prelude-settings.js';
import { resendPin, sendPin, type SendOutcome } from './send-pin.js';
import { getService, serviceMessageId } from './twilio-services.js';
// A custom code is taken as Twilio's CustomCode is, and a create holds its target under the lock Twilio's starts take.
import { CUSTOM_CODE, START_LOCK_MS } from './twilio-verifications.js';
import { verifyPin } from './verify-pin.js';
import { checkWebhookUrl } from './webhooks.js';

export type PreludeTarget = { type: 'phone_number' | 'email_address'; value: string };
export type PreludeMethod = 'email' | 'message' | 'voice';
export type BlockedReason = 'in_block_list' | 'repeated_attempts' | 'suspicious';

/** Prelude's `signals`: what the client knows of its user's device, for the risk score. */
export interface PreludeSignals {
  ip?: string;
  deviceId?: string;
  devicePlatform?: string;
  deviceModel?: string;
  osVersion?: string;
  appVersion?: string;
  userAgent?: string;
  isTrustedUser?: boolean;
  ja4Fingerprint?: string;
}

export interface CreateInput {
  target: PreludeTarget;
  /** Kept with the verification: answered by its check and told in its webhooks. */
  metadata?: { correlationId?: string };
  options?: {
    templateId?: string;
    variables?: Record<string, string>;
    locale?: string;
    codeSize?: number;
    customCode?: string;
    method?: string;
    preferredChannel?: string;
    callbackUrl?: string;
  };
  /** Prelude's `signals.ip`: the end user's address, a signal of the risk score. */
  clientAddress?: string;
  /** Every signal the create carried (the address among them is `clientAddress`). */
  signals?: PreludeSignals;
}

export type CreateOutcome =
  | { status: 'success' | 'retry'; id: string; method: PreludeMethod; channel: Channel }
  // Sent, but the risk score would have blocked it had the application's risk mode been enforce.
  | { status: 'shadow_blocked'; id: string; method: PreludeMethod; channel: Channel; reason: BlockedReason }
  | { status: 'blocked'; id: string; method: PreludeMethod; reason: BlockedReason };

export type CheckOutcome = { status: 'success' | 'failure'; id: string; correlationId?: string } | { status: 'expired_or_not_found' };

/** Prelude's code_size: 4 to 8 digits. */
export const CODE_SIZE_MIN = 4;
export const CODE_SIZE_MAX = 8;
/** A BCP-47 tag's shape (`el`, `el-GR`, `zh-Hant-HK`); its language part picks the template. */
const LOCALE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** The engine's limits and guards that refuse a send, as the reason Prelude gives a `blocked` verification. */
const BLOCKED_REASON: Partial<Record<FailureName, BlockedReason>> = {
  SEND_LIMIT_DESTINATION: 'repeated_attempts',
  SEND_LIMIT_APPLICATION: 'suspicious',
  GUARD_IP_LIMIT: 'suspicious',
  GUARD_PREFIX_LIMIT: 'suspicious',
  GUARD_CONVERSION_BREAKER: 'suspicious',
  DESTINATION_BLOCKED: 'in_block_list',
  RISK_BLOCKED: 'suspicious',
};

/** The engine's request fields, as Prelude's parameters. */
const PARAMETER_OF: Record<string, string> = { to: 'target.value', messageId: 'options.template_id', from: 'options.sender_id' };
const CODE_OF_PARAMETER: Record<string, string> = { 'options.template_id': 'template_not_found', 'options.variables': 'invalid_template_variables' };

function invalid(param: string, code: string, message: string) {
  return fail('INVALID_REQUEST', message, { validationErrors: { [param]: [message] }, dialectCode: code });
}

/** An engine failure in Prelude's terms: its fields named as Prelude's parameters. */
function asPreludeFailure(failure: Failure): { ok: false; failure: Failure } {
  if (!failure.validationErrors) return { ok: false, failure };
  const validationErrors: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(failure.validationErrors)) {
    const param = PARAMETER_OF[field] ?? (field.startsWith('placeholders') ? 'options.variables' : field);
    (validationErrors[param] ??= []).push(...messages);
  }
  const first = Object.keys(validationErrors)[0];
  const code = first === undefined ? undefined : CODE_OF_PARAMETER[first];
  return { ok: false, failure: { ...failure, validationErrors, ...(code !== undefined ? { dialectCode: code } : {}) } };
}

/** The engine's destination of a target: digits of an E.164 number (given with its `+`), or an email address. */
export function destinationOf(target: PreludeTarget): Result<string> {
  if (target.type === 'email_address') {
    const email = normalizeEmailAddress(target.value);
    return email.ok ? ok(email.value) : invalid('target.value', 'invalid_request', `The email address is invalid: ${email.error}`);
  }
  const phone = target.value.startsWith('+') ? normalizePhoneNumber(target.value) : undefined;
  if (!phone?.ok) return invalid('target.value', 'invalid_phone_number', 'The provided phone number is invalid. Provide a valid E.164 phone number.');
  return ok(phone.value);
}

/** The channel of a phone target: `voice` by method, else the preferred messaging channel the engine has, else SMS. */
function phoneChannel(method: string | undefined, preferred: string | undefined): Channel {
  if (method === 'voice') return 'voice';
  if (preferred === 'whatsapp' || preferred === 'telegram') return preferred;
  return 'sms';
}

export const methodOf = (channel: Channel): PreludeMethod => (channel === 'email' ? 'email' : channel === 'voice' ? 'voice' : 'message');

/** The built-in template's locale: the tag, else its language, else English; without one, the number's country's language. */
function localeOf(locale: string | undefined, destination: string, channel: Channel): Result<string> {
  if (locale === undefined) return ok(channel === 'email' ? DEFAULT_LOCALE : countryLocale(phoneCountry(destination)));
  if (!LOCALE.test(locale)) return invalid('options.locale', 'invalid_locale', 'The locale must be a BCP-47 language tag, such as el-GR.');
  return ok(twilioLocale(locale) ?? twilioLocale(locale.split('-')[0]!) ?? DEFAULT_LOCALE);
}

/** The target's newest PIN in the application, if it is of the target's kind (a phone's or an email's). */
async function latestPin(ctx: ServiceContext, principal: Principal, applicationId: string, destination: string, email: boolean): Promise<PinRecord | undefined> {
  const pinId = await ctx.store.twilio.latestPinId(principal.accountId, applicationId, destination);
  const pin = pinId === undefined ? undefined : await ctx.store.getPin(principal.accountId, pinId);
  return pin && (pin.channel === 'email') === email ? pin : undefined;
}

/** The code to send, when the request chose its size or the code itself; undefined: the template's. */
function chosenCode(ctx: ServiceContext, options: NonNullable<CreateInput['options']>, customCodeAllowed: boolean): Result<string | undefined> {
  const { codeSize, customCode } = options;
  if (codeSize !== undefined && customCode !== undefined) return invalid('options.code_size', 'custom_size_conflict', 'code_size cannot be combined with custom_code.');
  if (customCode !== undefined) {
    if (!customCodeAllowed) return invalid('options.custom_code', 'custom_code_not_allowed', 'Custom codes are not enabled for this account (PUT /api/v1/prelude/settings customCodeAllowed).');
    if (!CUSTOM_CODE.test(customCode)) return invalid('options.custom_code', 'invalid_custom_code', 'custom_code must be 4 to 10 letters or digits.');
    const tooShort = chosenCodeTooShort(profileOf(ctx), customCode);
    return tooShort === undefined ? ok(customCode) : invalid('options.custom_code', 'invalid_custom_code', `custom_code ${tooShort}.`);
  }
  if (codeSize === undefined) return ok(undefined);
  if (!Number.isInteger(codeSize) || codeSize < CODE_SIZE_MIN || codeSize > CODE_SIZE_MAX) {
    return invalid('options.code_size', 'invalid_code_size', `code_size must be a whole number from ${CODE_SIZE_MIN} to ${CODE_SIZE_MAX}.`);
  }
  const code = generatePin('NUMERIC', codeSize);
  const tooShort = chosenCodeTooShort(profileOf(ctx), code);
  return tooShort === undefined ? ok(code) : invalid('options.code_size', 'invalid_code_size', `code_size ${tooShort.replace(/characters/, 'digits')}.`);
}

/** The webhooks' URL, under the rules of every webhook URL of the account (https, public addresses: checkWebhookUrl). */
async function checkCallbackUrl(ctx: ServiceContext, url: string | undefined): Promise<Result<string | null>> {
  if (url === undefined) return ok(null);
  const checked = await checkWebhookUrl(url, ctx.webhookAddresses);
  return checked.ok ? ok(checked.url) : invalid('options.callback_url', 'invalid_callback_url', `callback_url ${checked.error}.`);
}

export async function createVerification(ctx: ServiceContext, principal: Principal, input: CreateInput): Promise<Result<CreateOutcome>> {
  const settings = await preludeApplication(ctx, principal);
  if (!settings.ok) return settings;
  const { application, customCodeAllowed } = settings.value;
  const options = input.options ?? {};
  const destination = destinationOf(input.target);
  if (!destination.ok) return destination;
  const channel: Channel = input.target.type === 'email_address' ? 'email' : phoneChannel(options.method, options.preferredChannel);
  const locale = localeOf(options.locale, destination.value, channel);
  if (!locale.ok) return locale;
  const code = chosenCode(ctx, options, customCodeAllowed);
  if (!code.ok) return code;
  const callback = await checkCallbackUrl(ctx, options.callbackUrl);
  if (!callback.ok) return callback;

  // One create per target at a time, under the lock Twilio's starts take: two at once would both find
  // no live PIN and send two. Prelude has no error for a concurrent create, so one waits for the other
  // and then finds its PIN (a retry); only a lock held past the wait is refused, with Retry-After.
  const lockKey = `${application.id}:${destination.value}`;
  const lockedUntil = await takeStartLock(ctx, lockKey);
  if (lockedUntil === undefined) {
    return fail('CONCURRENT_START', 'Another verification of this target is being created; retry in a second', { retryAfterMs: 1000 });
  }
  const now = ctx.clock();
  try {
    return await createLocked(ctx, principal, {
      applicationId: application.id, applicationName: application.name, destination: destination.value, channel, locale: locale.value, code: code.value, options,
      clientAddress: input.clientAddress, now, correlationId: input.metadata?.correlationId ?? null, callbackUrl: callback.value,
    });
  } finally {
    await ctx.store.twilio.unlockStart(lockKey, lockedUntil);
  }
}

/** How long a create waits for a concurrent one to the same target, and how often it looks. */
const LOCK_WAIT_MS = 3000;
const LOCK_POLL_MS = 20;

/** Takes the target's start lock, waiting (bounded) while another create holds it; its expiry, or undefined when it stayed taken. */
async function takeStartLock(ctx: ServiceContext, key: string): Promise<number | undefined> {
  for (let waited = 0; ; waited += LOCK_POLL_MS) {
    const now = ctx.clock();
    const until = now + START_LOCK_MS;
    if (await ctx.store.twilio.lockStart(key, now, until)) return until;
    if (waited >= LOCK_WAIT_MS) return undefined;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

interface CreatePlan {
  applicationId: string;
  applicationName: string;
  destination: string;
  channel: Channel;
  locale: string;
  code: string | undefined;
  options: NonNullable<CreateInput['options']>;
  clientAddress: string | undefined;
  now: number;
  correlationId: string | null;
  callbackUrl: string | null;
}

/** The answer of a send or a resend: the PIN's id and channel, or `blocked` when a limit or guard refused it. */
async function outcomeOf(ctx: ServiceContext, principal: Principal, sent: Result<SendOutcome>, status: 'success' | 'retry', plan: CreatePlan, refusedId: string): Promise<Result<CreateOutcome>> {
  if (!sent.ok) {
    const reason = BLOCKED_REASON[sent.failure.name];
    if (reason !== undefined) return ok({ status: 'blocked', id: preludeVerificationId(refusedId), method: methodOf(plan.channel), reason });
    return asPreludeFailure(sent.failure);
  }
  // Under a workflow the PIN went out on the workflow's first channel: answered as sent.
  const pin = await ctx.store.getPin(principal.accountId, sent.value.pinId);
  // The verification's metadata and webhooks (store/dialect-callbacks.ts), kept from its first create that had any.
  if (pin && (plan.correlationId !== null || plan.callbackUrl !== null)) {
    await ctx.store.prelude.saveVerification({
      pinId: pin.id, accountId: principal.accountId, correlationId: plan.correlationId, callbackUrl: plan.callbackUrl, createdAt: plan.now, expiresAt: pin.expiresAt,
    });
  }
  const channel = status === 'retry' ? plan.channel : pin?.channel ?? plan.channel;
  if (sent.value.risk?.decision === 'shadow_block') return ok({ status: 'shadow_blocked', id: preludeVerificationId(sent.value.pinId), method: methodOf(channel), channel, reason: 'suspicious' });
  return ok({ status, id: preludeVerificationId(sent.value.pinId), method: methodOf(channel), channel });
}

async function createLocked(ctx: ServiceContext, principal: Principal, plan: CreatePlan): Promise<Result<CreateOutcome>> {
  const { options } = plan;
  const placeholders = { friendly_name: plan.applicationName, ...options.variables };
  // A template's texts are picked at delivery from the locale as given (else the number's country);
  // without a template the locale chose the built-in text already (messageIdOf).
  const locale = options.templateId !== undefined && options.locale !== undefined ? { locale: options.locale } : {};
  const latest = await latestPin(ctx, principal, plan.applicationId, plan.destination, plan.channel === 'email');
  if (latest && isDeliverable(latest, plan.now)) {
    const resent = await resendPin(ctx, principal, latest.id, plan.channel, { placeholders, ...locale });
    // A PIN that ended meanwhile (verified, expired) opens a new window below.
    if (resent.ok || resent.failure.name !== 'PIN_ENDED') return outcomeOf(ctx, principal, resent, 'retry', plan, latest.id);
  }
  const messageId = await messageIdOf(ctx, principal, plan);
  if (!messageId.ok) return messageId;
  const sent = await sendPin(ctx, principal, plan.channel, {
    applicationId: plan.applicationId, messageId: messageId.value, to: plan.destination, placeholders, ...locale,
    ...(plan.code !== undefined ? { pin: plan.code } : {}), ...(plan.clientAddress !== undefined ? { clientAddress: plan.clientAddress } : {}),
  });
  return outcomeOf(ctx, principal, sent, 'success', plan, generatePinId());
}

/** The message template: the one `template_id` names in the application, else the built-in text of the locale. */
async function messageIdOf(ctx: ServiceContext, principal: Principal, plan: CreatePlan): Promise<Result<string>> {
  const kind = plan.channel === 'email' ? 'email' : 'sms_voice';
  const { templateId } = plan.options;
  if (templateId !== undefined) {
    // The id as Infobip writes it, or as Vonage does (a template made through /v2/verify/templates).
    const template = await readMessageTemplate(ctx, principal.accountId, plan.applicationId, resourceIdOfVonageId(templateId));
    if (!template || template.kind !== kind) return invalid('options.template_id', 'template_not_found', `No ${kind === 'email' ? 'email' : 'SMS/voice'} message template ${templateId} in the account's Prelude application.`);
    return ok(template.id);
  }
  // The built-in templates are the application's as a Twilio Service: one set per application, whichever dialect sends.
  const service = await getService(ctx, principal, serviceSid(plan.applicationId));
  if (!service.ok) return service;
  return ok(await serviceMessageId(ctx, principal, service.value, kind, plan.locale));
}

export interface CheckInput {
  target: PreludeTarget;
  code: string;
}

export async function checkVerification(ctx: ServiceContext, principal: Principal, input: CheckInput): Promise<Result<CheckOutcome>> {
  const settings = await preludeApplication(ctx, principal);
  if (!settings.ok) return settings;
  const destination = destinationOf(input.target);
  if (!destination.ok) return destination;
  const pin = await latestPin(ctx, principal, settings.value.application.id, destination.value, input.target.type === 'email_address');
  if (!pin || !isDeliverable(pin, ctx.clock())) return ok({ status: 'expired_or_not_found' });
  const outcome = await verifyPin(ctx, principal, pin.id, input.code);
  if (!outcome.ok) return outcome;
  const id = preludeVerificationId(pin.id);
  const answered = outcome.value.verified ? 'success' : outcome.value.pinError === 'WRONG_PIN' ? 'failure' : undefined;
  // A wrong code is a failure while the PIN lives; its last wrong attempt locks it, and the next check finds nothing.
  if (answered === undefined) return ok({ status: 'expired_or_not_found' });
  const correlationId = (await ctx.store.prelude.getVerification(principal.accountId, pin.id))?.correlationId ?? null;
  return ok({ status: answered, id, ...(correlationId !== null ? { correlationId } : {}) });
}
