// Use cases of Twilio Verify's Verifications, on the engine's PINs (sendPin, resendPin, verifyPin).
// What Twilio's users rely on, beyond the engine:
// - a second start to the same To while a verification is pending re-sends the same code (a resend
//   of the same PIN) and appends to send_code_attempts (on a PSD2 Service only for the same Amount and
//   Payee: another pair ends it and starts a new verification); the 6th send of one verification is refused
//   (60203), so the limit lifts when the verification ends;
// - a wrong check is an answer (pending, valid false), not an error; the check after the 5th wrong one
//   is refused (60202) and the verification is then gone;
// - an approved, canceled or expired verification is not found (20404) by a check; approved and
//   expired ones are not found by a fetch either.
import { normalizeEmailAddress, normalizePhoneNumber, parseEmailSender, phoneCountry } from '../domain/destinations.js';
import { autofillErrors } from '../domain/autofill.js';
import { fail, ok, type Failure, type FailureName, type Result } from '../domain/errors.js';
import { isDeliverable } from '../domain/pin-lifecycle.js';
import { chosenCodeTooShort } from '../domain/security-profile.js';
import { attemptSid, pinIdOf, serviceSid } from '../domain/twilio-sids.js';
import { isLocaleTag } from '../domain/template-locales.js';
import { countryLocale, DEFAULT_LOCALE, twilioLocale } from '../domain/twilio-templates.js';
import type { Channel, PinRecord } from '../store/store.js';
import type { TwilioVerificationRow, TwilioVerificationStatus } from '../store/twilio-store.js';
import type { Principal, ServiceContext } from './context.js';
import { profileOf } from './effective-records.js';
import { countBreakerVerify } from './security.js';
import { countRiskVerify } from './risk.js';
import type { NamedLimit } from './limit-refusals.js';
import { resendPin, sendPin } from './send-pin.js';
import { testNumberAuditReason } from './test-numbers.js';
import { rateLimitChecks } from './twilio-rate-limits.js';
import { getService, serviceMessageId, variantMessageId, type TwilioService } from './twilio-services.js';
import { customTemplateOf } from './twilio-templates.js';
import { TWILIO_CHANNEL, TWILIO_CHANNELS, twilioVerificationEvent, type TwilioChannel } from './twilio-events.js';
import { inUnitOfWork, type UnitOfWork } from './unit-of-work.js';
import { verifyPin } from './verify-pin.js';

export { TWILIO_CHANNELS, type TwilioChannel } from './twilio-events.js';

const ENGINE_CHANNEL: Record<TwilioChannel, Channel> = { sms: 'sms', call: 'voice', email: 'email', whatsapp: 'whatsapp' };

/** Sends of one verification before 60203 (Twilio: "more than 5 times"). */
export const MAX_SENDS = 5;

export type VerificationStatus = TwilioVerificationStatus | 'expired';

export interface Verification {
  service: TwilioService;
  pin: PinRecord;
  /** Absent for a PIN sent through Infobip's API. */
  row: TwilioVerificationRow | undefined;
  status: VerificationStatus;
  channel: TwilioChannel;
  /** The destination as Twilio writes it: E.164 with `+` for phone numbers. */
  to: string;
  updatedAt: number;
}

export interface StartInput {
  to: string;
  channel: string;
  customFriendlyName?: string;
  /** The `RateLimits` parameter: a JSON object of the service's Rate Limit names and their values. */
  rateLimits?: string;
  /** Twilio's `Locale` (sms and call; email is not translated). */
  locale?: string;
  /** Twilio's `TemplateSid`: the built-in template or a custom one of the Service's application (GET /v2/Templates). */
  templateSid?: string;
  /** Twilio's `TemplateCustomSubstitutions`: a JSON object of the template's own placeholders' values. */
  templateCustomSubstitutions?: string;
  /** The code to send (the service's CustomCodeEnabled); ignored otherwise, as on Twilio. */
  customCode?: string;
  /** Android SMS Retriever hash: the SMS's autofill line. */
  appHash?: string;
  /** PSD2: required on a service with Psd2Enabled, named in the message and repeated by the check. */
  amount?: string;
  payee?: string;
  /** JSON object: email `from`, `from_name` (applied), `substitutions` (accepted). */
  channelConfiguration?: string;
  /** Twilio's `DeviceIp`: the end user's address, a signal of the risk score. */
  deviceIp?: string;
}

/** Twilio's CustomCode: 4 to 10 characters; letters and digits here. */
export const CUSTOM_CODE = /^[0-9A-Za-z]{4,10}$/;
/** How long a start holds its destination at most (a start that died frees it after this). */
export const START_LOCK_MS = 30_000;
const PSD2_FIELD_MAX = 64;

/** The email sender a ChannelConfiguration names (`from`, `from_name`), if any. */
function emailSenderOf(raw: string | undefined): Result<string | undefined> {
  if (raw === undefined) return ok(undefined);
  let config: unknown;
  try {
    config = JSON.parse(raw);
  } catch {
    return invalid('ChannelConfiguration', 'must be a JSON object');
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return invalid('ChannelConfiguration', 'must be a JSON object');
  const { from, from_name: fromName } = config as Record<string, unknown>;
  if (from === undefined) return ok(undefined);
  if (typeof from !== 'string' || (fromName !== undefined && typeof fromName !== 'string')) return invalid('ChannelConfiguration', 'from and from_name must be strings');
  const sender = fromName === undefined ? from : `${fromName.replace(/["\\]/g, '')} <${from}>`;
  const parsed = parseEmailSender(sender);
  return parsed.ok ? ok(sender) : invalid('ChannelConfiguration', `from: ${parsed.error}`);
}

/** The values of a template's own placeholders (`{{name}}`), from TemplateCustomSubstitutions' JSON object of strings. */
function substitutionsOf(raw: string | undefined): Result<Record<string, string>> {
  if (raw === undefined) return ok({});
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return invalid('TemplateCustomSubstitutions', 'must be a JSON object of strings');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
    return invalid('TemplateCustomSubstitutions', 'must be a JSON object of strings');
  }
  return ok({ ...(parsed as Record<string, string>) });
}

function notFound(path: string) {
  return fail('RESOURCE_NOT_FOUND', `The requested resource ${path} was not found`);
}

function invalid(field: string, message: string) {
  return fail('INVALID_REQUEST', `Invalid parameter: ${field}`, { validationErrors: { [field]: [message] } });
}

/** A verification's status is its PIN's: the dialect's row records only which end was reported (store/twilio-store.ts). */
function statusOf(pin: PinRecord, now: number): VerificationStatus {
  if (pin.verifiedAt !== null) return 'approved';
  if (pin.lockedAt !== null) return pin.attemptsLeft === 0 ? 'max_attempts_reached' : 'canceled';
  if (pin.expiresAt <= now) return 'expired';
  return 'pending';
}

function verificationOf(service: TwilioService, pin: PinRecord, row: TwilioVerificationRow | undefined, now: number): Verification {
  return {
    service, pin, row, status: statusOf(pin, now),
    channel: (row?.channel as TwilioChannel | undefined) ?? TWILIO_CHANNEL[pin.channel],
    to: pin.channel === 'email' ? pin.destination : `+${pin.destination}`,
    updatedAt: Math.max(row?.updatedAt ?? pin.createdAt, pin.verifiedAt ?? 0, pin.lockedAt ?? 0),
  };
}

/** Twilio's `To`: E.164 with a leading `+` for a phone channel, an address for email. */
function destinationOf(channel: Channel, to: string): Result<string> {
  if (channel === 'email') {
    const email = normalizeEmailAddress(to);
    return email.ok ? ok(email.value) : invalid('To', email.error);
  }
  if (!to.startsWith('+')) return invalid('To', 'must be an E.164 number with a leading +');
  const phone = normalizePhoneNumber(to);
  return phone.ok ? ok(phone.value) : invalid('To', phone.error);
}

/** The engine's field names, as Twilio's parameters. */
const PARAMETER_OF: Record<string, string> = { to: 'To', from: 'From', messageId: 'TemplateSid', applicationId: 'ServiceSid' };

/** Every limit and guard that can refuse a send: Twilio reports each as its send attempts running out (60203). */
const SEND_REFUSALS: ReadonlySet<FailureName> = new Set(['SEND_LIMIT_APPLICATION', 'SEND_LIMIT_DESTINATION', 'GUARD_IP_LIMIT', 'GUARD_PREFIX_LIMIT', 'GUARD_CONVERSION_BREAKER']);

function asTwilioFailure(failure: Failure): { ok: false; failure: Failure } {
  if (SEND_REFUSALS.has(failure.name)) return { ok: false, failure: { ...failure, name: 'SEND_ATTEMPTS_EXHAUSTED', text: 'Max send attempts reached' } };
  if (!failure.validationErrors) return { ok: false, failure };
  const validationErrors: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(failure.validationErrors)) {
    const name = PARAMETER_OF[field] ?? (field.startsWith('placeholders') ? 'CustomFriendlyName' : field);
    (validationErrors[name] ??= []).push(...messages);
  }
  return { ok: false, failure: { ...failure, validationErrors } };
}

export function startVerification(ctx: ServiceContext, principal: Principal, serviceSidParam: string, input: StartInput): Promise<Result<Verification>> {
  return inUnitOfWork(ctx, principal, (unit) => start(unit, serviceSidParam, input));
}

async function start(unit: UnitOfWork, serviceSidParam: string, input: StartInput): Promise<Result<Verification>> {
  const { ctx, principal } = unit;
  const found = await getService(ctx, principal, serviceSidParam);
  if (!found.ok) return found;
  const service = found.value;
  if (!(TWILIO_CHANNELS as readonly string[]).includes(input.channel)) return invalid('Channel', `must be one of ${TWILIO_CHANNELS.join(', ')}`);
  const twilioChannel = input.channel as TwilioChannel;
  const channel = ENGINE_CHANNEL[twilioChannel];
  const destination = destinationOf(channel, input.to);
  if (!destination.ok) return destination;
  const custom = input.templateSid === undefined ? undefined : await customTemplateOf(ctx, principal, service.application.id, input.templateSid);
  if (custom === false) return invalid('TemplateSid', 'is not a template of GET /v2/Templates in this Service\'s application');
  if (custom && channel === 'email') return invalid('TemplateSid', 'a template is for sms, call and whatsapp: leave it out for email');
  if (custom && input.appHash !== undefined) return invalid('AppHash', 'with a TemplateSid, set the app hash on the template (PUT /api/v1/applications/{id}/messages/{messageId}/autofill)');
  // Without Locale, Twilio speaks the language of the number's country (English where it has none).
  // A custom template's texts are picked at delivery from the Locale as given (domain/template-locales.ts).
  const locale = input.locale === undefined ? (channel === 'email' ? DEFAULT_LOCALE : countryLocale(phoneCountry(destination.value)))
    : custom ? (isLocaleTag(input.locale) ? input.locale : undefined) : twilioLocale(input.locale);
  if (locale === undefined) return invalid('Locale', custom ? 'is not a BCP-47 language tag' : 'is not a locale of the built-in templates (GET /v2/Templates)');
  const customCode = service.settings.custom_code_enabled === true ? input.customCode : undefined;
  if (customCode !== undefined && !CUSTOM_CODE.test(customCode)) return invalid('CustomCode', 'must be 4 to 10 letters or digits');
  const customCodeTooShort = customCode === undefined ? undefined : chosenCodeTooShort(profileOf(ctx), customCode);
  if (customCodeTooShort !== undefined) return invalid('CustomCode', customCodeTooShort);
  if (input.appHash !== undefined && autofillErrors({ webOtpDomain: null, androidAppHash: input.appHash })['androidAppHash'] !== undefined) {
    return invalid('AppHash', 'must be the 11-character SMS Retriever app hash (letters, digits, + and /)');
  }
  const psd2 = service.settings.psd2_enabled === true;
  if (psd2) {
    if (input.amount === undefined || input.payee === undefined || input.amount === '' || input.payee === '') {
      return fail('PSD2_REQUIRED', 'Amount and Payee are required by this PSD2 service');
    }
    if (input.amount.length > PSD2_FIELD_MAX) return invalid('Amount', `must be at most ${PSD2_FIELD_MAX} characters`);
    if (input.payee.length > PSD2_FIELD_MAX) return invalid('Payee', `must be at most ${PSD2_FIELD_MAX} characters`);
    if (twilioChannel === 'call') return fail('PSD2_CALL', 'The call channel is not allowed for PSD2 verifications');
  }
  const sender = channel === 'email' ? emailSenderOf(input.channelConfiguration) : emailSenderOf(undefined);
  if (!sender.ok) return sender;
  const substitutions = substitutionsOf(input.templateCustomSubstitutions);
  if (!substitutions.ok) return substitutions;
  const placeholders: Record<string, string> = {
    ...substitutions.value, friendly_name: input.customFriendlyName ?? service.application.name, ...(psd2 ? { amount: input.amount!, payee: input.payee! } : {}),
  };
  const checks = await rateLimitChecks(ctx, service, input.rateLimits);
  if (!checks.ok) return checks;

  const now = ctx.clock();
  // One start per destination at a time (Twilio's 60212): two at once would both find nothing pending and make two verifications.
  const lockKey = `${service.application.id}:${destination.value}`;
  const lockedUntil = now + START_LOCK_MS;
  if (!(await ctx.store.twilio.lockStart(lockKey, now, lockedUntil))) {
    return fail('CONCURRENT_START', 'Too many concurrent requests for phone number', { retryAfterMs: 1000 });
  }
  try {
    return await startLocked(unit, service, {
      input, destination: destination.value, channel, twilioChannel, locale, placeholders, serviceLimits: checks.value, customCode, psd2, sender: sender.value, now,
      ...(custom ? { customMessageId: custom.id, ...(input.locale !== undefined ? { requestedLocale: input.locale } : {}) } : {}),
    });
  } finally {
    await ctx.store.twilio.unlockStart(lockKey, lockedUntil);
  }
}

interface StartPlan {
  input: StartInput;
  destination: string;
  channel: Channel;
  twilioChannel: TwilioChannel;
  locale: string;
  placeholders: Record<string, string>;
  /**
   * The service's Rate Limit Buckets: they count every start that sends, a repeated one too (20429),
   * consumed with the send's own limits so that a start refused for any reason counts in none.
   */
  serviceLimits: NamedLimit[];
  customCode: string | undefined;
  psd2: boolean;
  sender: string | undefined;
  now: number;
  /** The custom template a TemplateSid names, sent as it is (no PSD2 or app-hash variant of it). */
  customMessageId?: string;
  /** Its Locale as given: the message composer picks the text (without one, the number's country). */
  requestedLocale?: string;
}

async function startLocked(unit: UnitOfWork, service: TwilioService, plan: StartPlan): Promise<Result<Verification>> {
  const { ctx, principal } = unit;
  const { input, channel, twilioChannel, placeholders, now } = plan;
  const destination = { value: plan.destination };
  const latestId = await ctx.store.twilio.latestPinId(principal.accountId, service.application.id, destination.value);
  const latest = latestId === undefined ? undefined : await ctx.store.getPin(principal.accountId, latestId);
  const latestRow = latest ? await ctx.store.twilio.getVerification(principal.accountId, latest.id) : undefined;
  // PSD2 dynamic linking: a code confirms one amount to one payee (Twilio: it is unique to To, Amount
  // and Payee). Another pair is another transaction: the pending verification ends, and the new one
  // gets a code of its own, so no code shown for one transaction can approve another.
  const otherTransaction = plan.psd2 && latestRow?.status === 'pending' && (latestRow.amount !== input.amount || latestRow.payee !== input.payee);
  if (latest && otherTransaction && await ctx.store.twilio.settlePin(principal.accountId, latest.id, 'canceled', now, twilioVerificationEvent('verification.canceled', latest, latestRow.channel, 'canceled', now))) {
    unit.audit({ event: 'pin.cancel', applicationId: service.application.id, pinId: latest.id, destination: latest.destination, reason: 'twilio:psd2_transaction_changed' });
  }
  // A pending verification of this dialect to the same To: the same code again, under the same SID.
  if (!otherTransaction && latest && latestRow?.status === 'pending' && isDeliverable(latest, now) && (latest.channel === 'email') === (channel === 'email')) {
    if (latest.sendCount >= MAX_SENDS) {
      unit.audit({ event: 'pin.resend.refused', applicationId: service.application.id, pinId: latest.id, destination: latest.destination, reason: 'twilio:max_send_attempts' });
      return fail('SEND_ATTEMPTS_EXHAUSTED', 'Max send attempts reached', { retryAfterMs: latest.expiresAt - now });
    }
    const resent = await resendPin(ctx, principal, latest.id, channel, { placeholders, dialectLimits: plan.serviceLimits, ...(plan.requestedLocale !== undefined ? { locale: plan.requestedLocale } : {}) }, unit);
    if (!resent.ok) return asTwilioFailure(resent.failure);
    await ctx.store.twilio.recordSend(principal.accountId, latest.id, { time: now, channel: twilioChannel, attemptSid: attemptSid(resent.value.deliveryId) }, now);
    return fetchByPinId(ctx, principal, service, latest.id);
  }

  const baseMessageId = plan.customMessageId ?? await serviceMessageId(ctx, principal, service, channel === 'email' ? 'email' : 'sms_voice', plan.locale);
  const variant = channel === 'email' || plan.customMessageId !== undefined ? ok(baseMessageId)
    : await variantMessageId(ctx, principal, service, baseMessageId, { psd2: plan.psd2, ...(input.appHash !== undefined ? { appHash: input.appHash } : {}) });
  if (!variant.ok) return variant;
  const messageId = variant.value;
  const sent = await sendPin(ctx, principal, channel, {
    applicationId: service.application.id, messageId, to: destination.value, placeholders, dialectLimits: plan.serviceLimits,
    ...(plan.customCode !== undefined ? { pin: plan.customCode } : {}), ...(plan.sender !== undefined ? { from: plan.sender } : {}),
    ...(input.deviceIp !== undefined ? { clientAddress: input.deviceIp } : {}), ...(plan.requestedLocale !== undefined ? { locale: plan.requestedLocale } : {}),
    // The verification (its PSD2 Amount and Payee among it) and verification.started are written in
    // the PIN's own transaction: no PIN of a start is ever without them.
    dialect: (pin, deliveryId) => ({
      twilio: {
        pinId: pin.id, accountId: principal.accountId, status: 'pending', channel: twilioChannel,
        sendCodeAttempts: [{ time: now, channel: twilioChannel, attemptSid: attemptSid(deliveryId) }], createdAt: now, updatedAt: now, expiresAt: pin.expiresAt,
        amount: plan.psd2 ? input.amount! : null, payee: plan.psd2 ? input.payee! : null,
      },
      started: twilioVerificationEvent('verification.started', pin, twilioChannel, 'pending', now),
    }),
  }, unit);
  if (!sent.ok) return asTwilioFailure(sent.failure);
  return fetchByPinId(ctx, principal, service, sent.value.pinId);
}

async function fetchByPinId(ctx: ServiceContext, principal: Principal, service: TwilioService, pinId: string): Promise<Result<Verification>> {
  const pin = await ctx.store.getPin(principal.accountId, pinId);
  if (!pin || pin.applicationId !== service.application.id) return notFound(`/Services/${serviceSid(service.application.id)}/Verifications/${pinId}`);
  const row = await ctx.store.twilio.getVerification(principal.accountId, pinId);
  return ok(verificationOf(service, pin, row, ctx.clock()));
}

/** The verification a VE SID names in the service; undefined when there is none. */
async function bySid(ctx: ServiceContext, principal: Principal, service: TwilioService, sid: string): Promise<Verification | undefined> {
  const pinId = pinIdOf(sid);
  if (pinId === undefined) return undefined;
  const found = await fetchByPinId(ctx, principal, service, pinId);
  return found.ok ? found.value : undefined;
}

export async function fetchVerification(ctx: ServiceContext, principal: Principal, serviceSidParam: string, sid: string): Promise<Result<Verification>> {
  const found = await getService(ctx, principal, serviceSidParam);
  if (!found.ok) return found;
  const verification = await bySid(ctx, principal, found.value, sid);
  // Approved and expired verifications are "soft deleted" in Twilio: a fetch no longer finds them.
  if (!verification || verification.status === 'approved' || verification.status === 'expired') return notFound(`/Services/${serviceSidParam}/Verifications/${sid}`);
  return ok(verification);
}

export function updateVerification(ctx: ServiceContext, principal: Principal, serviceSidParam: string, sid: string, status: 'approved' | 'canceled'): Promise<Result<Verification>> {
  return inUnitOfWork(ctx, principal, (unit) => settle(unit, serviceSidParam, sid, status));
}

async function settle(unit: UnitOfWork, serviceSidParam: string, sid: string, status: 'approved' | 'canceled'): Promise<Result<Verification>> {
  const { ctx, principal } = unit;
  const found = await getService(ctx, principal, serviceSidParam);
  if (!found.ok) return found;
  const verification = await bySid(ctx, principal, found.value, sid);
  const missing = notFound(`/Services/${serviceSidParam}/Verifications/${sid}`);
  if (!verification || verification.status !== 'pending') return missing;
  const now = ctx.clock();
  if (!verification.row) {
    await ctx.store.twilio.insertVerification({
      pinId: verification.pin.id, accountId: principal.accountId, status: 'pending', channel: verification.channel, sendCodeAttempts: [],
      createdAt: verification.pin.createdAt, updatedAt: now, expiresAt: verification.pin.expiresAt,
    });
  }
  const event = twilioVerificationEvent(status === 'approved' ? 'verification.approved' : 'verification.canceled', verification.pin, verification.channel, status, now);
  if (!(await ctx.store.twilio.settlePin(principal.accountId, verification.pin.id, status, now, event))) return missing;
  // An approval is a verification like a right code: counted as such for the metrics and the conversion breaker.
  if (status === 'approved') {
    ctx.metrics.verification(verification.pin.channel, 'verified');
    if (!verification.pin.testNumber) {
      await countBreakerVerify(ctx, verification.pin.applicationId, verification.pin.destination, now);
      await countRiskVerify(ctx, verification.pin.applicationId, verification.pin.destination, now);
    }
  }
  unit.audit({
    event: status === 'approved' ? 'pin.verify' : 'pin.cancel', applicationId: verification.pin.applicationId, pinId: verification.pin.id,
    destination: verification.pin.destination, reason: testNumberAuditReason(status === 'approved' ? 'approved by update' : 'canceled by update', verification.pin.testNumber),
  });
  return fetchByPinId(ctx, principal, found.value, verification.pin.id);
}

export interface CheckInput {
  code: string;
  amount?: string;
  payee?: string;
  to?: string;
  verificationSid?: string;
}

export interface CheckOutcome {
  verification: Verification;
  valid: boolean;
}

export function checkVerification(ctx: ServiceContext, principal: Principal, serviceSidParam: string, input: CheckInput): Promise<Result<CheckOutcome>> {
  return inUnitOfWork(ctx, principal, (unit) => check(unit, serviceSidParam, input));
}

async function check(unit: UnitOfWork, serviceSidParam: string, input: CheckInput): Promise<Result<CheckOutcome>> {
  const { ctx, principal } = unit;
  const found = await getService(ctx, principal, serviceSidParam);
  if (!found.ok) return found;
  const service = found.value;
  const gone = notFound(`/Services/${serviceSidParam}/VerificationCheck`);
  let verification: Verification | undefined;
  if (input.verificationSid !== undefined) {
    verification = await bySid(ctx, principal, service, input.verificationSid);
  } else if (input.to !== undefined) {
    const destination = destinationOf(input.to.includes('@') ? 'email' : 'sms', input.to);
    if (!destination.ok) return destination;
    const pinId = await ctx.store.twilio.latestPinId(principal.accountId, service.application.id, destination.value);
    if (pinId !== undefined) {
      const fetched = await fetchByPinId(ctx, principal, service, pinId);
      if (fetched.ok) verification = fetched.value;
    }
  } else {
    return fail('NO_VERIFICATION_TARGET', 'Either a \'To\' or a \'VerificationSid\' must be specified');
  }
  // Only a pending verification, or one whose checks just ran out (its 6th check answers 60202), is checked.
  if (!verification || (verification.status !== 'pending' && !(verification.status === 'max_attempts_reached' && verification.row?.status === 'pending'))) return gone;

  // PSD2 dynamic linking: the code confirms one amount to one payee; another pair is refused before any attempt is spent.
  const row = verification.row;
  // On a PSD2 Service, a PIN without the row of its start (sent through Infobip's API: a start writes
  // its row with the PIN) has no Amount and Payee to link its code to: it is not checked.
  if (service.settings.psd2_enabled === true && !row) return gone;
  if (row?.amount != null && input.amount !== row.amount) return invalid('Amount', 'must be the Amount the verification was started with');
  if (row?.payee != null && input.payee !== row.payee) return invalid('Payee', 'must be the Payee the verification was started with');
  const pinId = verification.pin.id;
  // A right code approves the verification, and queues verification.approved, in the engine's own
  // verify transaction: no crash can leave the PIN verified and its verification unreported.
  const approved = twilioVerificationEvent('verification.approved', verification.pin, verification.channel, 'approved', ctx.clock());
  const outcome = await verifyPin(ctx, principal, pinId, input.code, unit, { approved });
  if (!outcome.ok) return outcome;
  const now = ctx.clock();
  switch (outcome.value.pinError) {
    case undefined:
    case 'WRONG_PIN':
      break;
    case 'NO_MORE_PIN_ATTEMPTS':
      await ctx.store.twilio.endVerification(principal.accountId, pinId, 'max_attempts_reached', now,
        twilioVerificationEvent('verification.max-attempts-reached', verification.pin, verification.channel, 'max_attempts_reached', now));
      return fail('CHECK_ATTEMPTS_EXHAUSTED', 'Max check attempts reached');
    default:
      return gone;
  }
  const after = await fetchByPinId(ctx, principal, service, pinId);
  if (!after.ok) return after;
  // The 5th wrong check spent the last attempt, yet Twilio still answers it pending: the next check is the refused one.
  const checked = outcome.value.pinError === 'WRONG_PIN' ? { ...after.value, status: 'pending' as const } : after.value;
  return ok({ verification: checked, valid: outcome.value.verified });
}
