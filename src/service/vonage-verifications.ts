// Use cases of Vonage Verify v2, on the engine's PINs (sendPin, verifyPin, the workflow scheduler).
// What Vonage's users rely on, beyond the engine:
// - a request names a workflow of up to three channels tried in turn, `channel_timeout` seconds apart,
//   until the code is checked: the first goes out with the send, the others are the PIN's workflow
//   steps (service/workflows.ts runs them; `next_workflow` makes the next one due now). Every step
//   reaches the same destination: the engine's PIN has one;
// - one live verification per number: a start while one is in flight is a 409 naming it;
// - a check answers 200 only for the right code; a wrong one is a 400 while attempts remain, a 410
//   once they ran out (the PIN is locked), as is a check of an expired request.
// A call works in the application its credentials name (service/vonage-credentials.ts).
import { normalizeEmailAddress, normalizePhoneNumber } from '../domain/destinations.js';
import { fail, ok, type Result, type ValidationErrors } from '../domain/errors.js';
import { generatePin } from '../domain/pin-generation.js';
import { isDeliverable } from '../domain/pin-lifecycle.js';
import { chosenCodeTooShort } from '../domain/security-profile.js';
import { serviceSid, verificationSid } from '../domain/twilio-sids.js';
import { DEFAULT_LOCALE, twilioLocale } from '../domain/twilio-templates.js';
import { parseDuration } from '../domain/durations.js';
import { pinIdOfVonageRequestId, resourceIdOfVonageId, vonageRequestId } from '../domain/vonage-ids.js';
import type { WorkflowStep } from '../domain/workflows.js';
import type { PinRecord } from '../store/store.js';
import type { Principal, ServiceContext } from './context.js';
import { profileOf, readApplication, readMessageTemplate } from './effective-records.js';
import { createSmsVoiceTemplate } from './message-templates.js';
import { sendPin } from './send-pin.js';
import { getService, serviceMessageId, type TwilioService } from './twilio-services.js';
// A chosen code is taken as Twilio's CustomCode is; a start holds its number under Twilio's start lock.
import { CUSTOM_CODE, START_LOCK_MS, updateVerification } from './twilio-verifications.js';
import { inUnitOfWork, type UnitOfWork } from './unit-of-work.js';
import { verifyPin } from './verify-pin.js';
import { defaultTemplateId } from './vonage-templates.js';
import { planSend } from './workflow-plan.js';

/** Vonage's channels that twofa sends; `silent_auth`, `rcs` and `whatsapp_interactive` are refused (docs/vonage-verify.md). */
export const VONAGE_CHANNELS = ['sms', 'voice', 'email', 'whatsapp'] as const;
type VonageChannel = typeof VONAGE_CHANNELS[number];

export interface WorkflowStepInput {
  channel: string;
  to: string;
  from?: string;
}

export interface StartInput {
  brand: string;
  workflow: WorkflowStepInput[];
  locale?: string;
  /** Seconds between the workflow's channels: 15 to 900, 180 by default. */
  channelTimeout?: number;
  code?: string;
  codeLength?: number;
  templateId?: string;
  /** Echoed in the request's callbacks. */
  clientRef?: string;
}

export const CHANNEL_TIMEOUT_DEFAULT_S = 180;
/**
 * Brands one application keeps a message template for (see brandedMessageId): an application has a
 * brand or two, and this bounds what starts can add to its configuration, whatever brands they send.
 */
export const BRANDS_PER_APPLICATION_MAX = 10;
const BRAND_KEY = '+brand:';
export const CODE_LENGTH_DEFAULT = 4;

function invalid(name: string, reason: string) {
  const validationErrors: ValidationErrors = { [name]: [reason] };
  return fail('INVALID_REQUEST', 'The value of one or more parameters is invalid.', { validationErrors });
}

function requestNotFound(requestId: string) {
  return fail('PIN_NOT_FOUND', `Request ${requestId} was not found or it has been verified already.`, { dialectCode: 'request-not-found' });
}

/** The PIN a request id names in the caller's application, or undefined. */
async function pinOf(ctx: ServiceContext, principal: Principal, applicationId: string, requestId: string): Promise<PinRecord | undefined> {
  const pinId = pinIdOfVonageRequestId(requestId);
  const pin = pinId === undefined ? undefined : await ctx.store.getPin(principal.accountId, pinId);
  return pin?.applicationId === applicationId ? pin : undefined;
}

function destinationOf(channel: VonageChannel, to: string): Result<string> {
  const normalized = channel === 'email' ? normalizeEmailAddress(to) : normalizePhoneNumber(to);
  return normalized.ok ? ok(normalized.value) : invalid('workflow[0].to', normalized.error);
}

/** The workflow's channels, each reaching the first step's destination. */
function checkWorkflow(workflow: WorkflowStepInput[]): Result<VonageChannel[]> {
  const channels: VonageChannel[] = [];
  for (const [i, step] of workflow.entries()) {
    if (step.channel === 'silent_auth') return invalid(`workflow[${i}].channel`, 'silent_auth is not supported by this server: use sms, voice, email or whatsapp');
    if (!(VONAGE_CHANNELS as readonly string[]).includes(step.channel)) return invalid(`workflow[${i}].channel`, `must be one of ${VONAGE_CHANNELS.join(', ')}`);
    if (i > 0 && step.to !== workflow[0]!.to) return invalid(`workflow[${i}].to`, 'every step of a workflow must reach the first step\'s destination on this server');
    channels.push(step.channel as VonageChannel);
  }
  return ok(channels);
}

/** The code to send: the request's own, else one of `code_length` digits. */
function chosenCode(ctx: ServiceContext, input: StartInput): Result<string> {
  if (input.code !== undefined) {
    if (!CUSTOM_CODE.test(input.code)) return invalid('code', 'must be 4 to 10 letters or digits');
    const tooShort = chosenCodeTooShort(profileOf(ctx), input.code);
    return tooShort === undefined ? ok(input.code) : invalid('code', tooShort);
  }
  const code = generatePin('NUMERIC', input.codeLength ?? CODE_LENGTH_DEFAULT);
  const tooShort = chosenCodeTooShort(profileOf(ctx), code);
  return tooShort === undefined ? ok(code) : invalid('code_length', tooShort.replace(/characters/, 'digits'));
}

/** The built-in text's locale: Vonage's `en-us` is the tag, else its language, else English. */
function localeOf(locale: string | undefined): string {
  if (locale === undefined) return DEFAULT_LOCALE;
  return twilioLocale(locale) ?? twilioLocale(locale.split(/[-_]/)[0]!) ?? DEFAULT_LOCALE;
}

/**
 * The template a start sends with: the one `template_id` names (any SMS/voice message template of the
 * application), else the application's default template; undefined: the built-in text of the locale.
 * An email has no locale texts: a template is for the phone channels.
 */
async function customTemplateId(ctx: ServiceContext, principal: Principal, applicationId: string, first: VonageChannel, templateId: string | undefined): Promise<Result<string | undefined>> {
  if (templateId === undefined) return ok(first === 'email' ? undefined : await defaultTemplateId(ctx, principal, applicationId));
  if (first === 'email') return invalid('template_id', 'a template is for sms, voice and whatsapp workflows: leave it out for email');
  const template = await readMessageTemplate(ctx, principal.accountId, applicationId, resourceIdOfVonageId(templateId));
  if (!template || template.kind !== 'sms_voice') return invalid('template_id', `no template ${templateId} in this application (GET /v2/verify/templates)`);
  return ok(template.id);
}

/** What a template's `${brand}`, `${time-limit}` and `${time-limit-unit}` become. */
function templatePlaceholders(brand: string, pinTimeToLive: string): Record<string, string> {
  const minutes = Math.max(1, Math.round((parseDuration(pinTimeToLive) ?? 15 * 60_000) / 60_000));
  return { friendly_name: brand, 'time-limit': String(minutes), 'time-limit-unit': minutes === 1 ? 'minute' : 'minutes' };
}

export function startVerification(ctx: ServiceContext, principal: Principal, applicationId: string, input: StartInput): Promise<Result<{ requestId: string }>> {
  return inUnitOfWork(ctx, principal, (unit) => start(unit, applicationId, input));
}

async function start(unit: UnitOfWork, applicationId: string, input: StartInput): Promise<Result<{ requestId: string }>> {
  const { ctx, principal } = unit;
  const channels = checkWorkflow(input.workflow);
  if (!channels.ok) return channels;
  const first = channels.value[0]!;
  const destination = destinationOf(first, input.workflow[0]!.to);
  if (!destination.ok) return destination;
  const code = chosenCode(ctx, input);
  if (!code.ok) return code;
  const app = await readApplication(ctx, principal.accountId, applicationId);
  if (!app) return fail('APPLICATION_NOT_FOUND', `application ${applicationId} does not exist`);

  const now = ctx.clock();
  // One start per number at a time: two at once would both find nothing in flight and send two.
  const lockKey = `${applicationId}:${destination.value}`;
  const lockedUntil = now + START_LOCK_MS;
  if (!(await ctx.store.twilio.lockStart(lockKey, now, lockedUntil))) {
    return fail('CONCURRENT_START', 'Concurrent verifications to the same number are not allowed.', { retryAfterMs: 1000 });
  }
  try {
    const inFlight = await ctx.store.twilio.latestPinId(principal.accountId, applicationId, destination.value);
    const live = inFlight === undefined ? undefined : await ctx.store.getPin(principal.accountId, inFlight);
    if (live && isDeliverable(live, now)) {
      return fail('CONCURRENT_START', 'Concurrent verifications to the same number are not allowed.', { dialectCode: 'concurrent', dialectFields: { request_id: vonageRequestId(live.id) } });
    }
    const service = await getService(ctx, principal, serviceSid(applicationId));
    if (!service.ok) return service;
    const custom = await customTemplateId(ctx, principal, applicationId, first, input.templateId);
    if (!custom.ok) return custom;
    const builtIn = custom.value ?? await serviceMessageId(ctx, principal, service.value, first === 'email' ? 'email' : 'sms_voice', localeOf(input.locale));
    // The later channels are the PIN's workflow steps, `channel_timeout` apart. An application with a
    // workflow of its own sends under that one (send-pin.ts), whichever dialect asked.
    const timeout = `${input.channelTimeout ?? CHANNEL_TIMEOUT_DEFAULT_S}s`;
    const steps: WorkflowStep[] = channels.value.map((channel, i) => (i === 0 ? { channel } : { channel, after: timeout }));
    const plan = channels.value.length > 1 && !app.workflow?.length ? planSend(ctx, { ...app, workflow: steps }, first) : undefined;
    // The workflow's later channels are resent by the scheduler, which has no request placeholders to
    // give: their text holds the brand itself.
    // A template's steps are rendered with the start's placeholders and locale, which the PIN keeps.
    const messageId = plan && !custom.value ? await brandedMessageId(ctx, principal, service.value, builtIn, input.brand) : ok(builtIn);
    if (!messageId.ok) return messageId;
    const from = input.workflow[0]!.from;
    const sent = await sendPin(ctx, principal, plan?.channel ?? first, {
      applicationId, messageId: messageId.value, to: destination.value, pin: code.value,
      ...(custom.value ? { placeholders: templatePlaceholders(input.brand, app.configuration.pinTimeToLive), ...(input.locale !== undefined ? { locale: input.locale } : {}) } : { placeholders: { friendly_name: input.brand } }),
      ...(from !== undefined && (first === 'sms' || first === 'email') ? { from } : {}),
    }, unit);
    if (!sent.ok) return sent;
    // Written after the PIN (send-pin.ts writes an application's steps before it): a crash in between
    // loses the later channels of this one request, never a PIN without its answer.
    if (plan) await ctx.store.workflows.schedule(principal.accountId, sent.value.pinId, plan.steps(now), now);
    // What the callbacks tell beside the PIN (store/dialect-callbacks.ts). Written after the PIN, as
    // its steps are: a crash in between loses this request's callbacks, never its answer.
    const pin = await ctx.store.getPin(principal.accountId, sent.value.pinId);
    await ctx.store.vonage.insertRequest({
      pinId: sent.value.pinId, accountId: principal.accountId, applicationId, clientRef: input.clientRef ?? null,
      channelTimeout: input.channelTimeout ?? CHANNEL_TIMEOUT_DEFAULT_S, channels: channels.value, createdAt: now, expiresAt: pin?.expiresAt ?? now,
    });
    return ok({ requestId: vonageRequestId(sent.value.pinId) });
  } finally {
    await ctx.store.twilio.unlockStart(lockKey, lockedUntil);
  }
}

/**
 * The built-in SMS/voice text with the brand written in ({{friendly_name}} replaced), made at first
 * use and kept beside the application's locale templates. `brand` cannot hold `{`, `}` or `$`
 * (Vonage's own pattern, checked by the schema), so it is taken literally.
 */
async function brandedMessageId(ctx: ServiceContext, principal: Principal, service: TwilioService, baseMessageId: string, brand: string): Promise<Result<string>> {
  const key = `${baseMessageId}${BRAND_KEY}${brand}`;
  const listed = () => ctx.store.twilio.listLocaleMessages(principal.accountId, service.application.id);
  const known = await listed();
  const found = known.find((l) => l.locale === key);
  if (found) return ok(found.messageId);
  const brands = new Set(known.map((l) => l.locale.split(BRAND_KEY)[1]).filter((b) => b !== undefined));
  if (!brands.has(brand) && brands.size >= BRANDS_PER_APPLICATION_MAX) {
    return invalid('brand', `this application sends workflows under ${BRANDS_PER_APPLICATION_MAX} brands already, at most`);
  }
  const base = await readMessageTemplate(ctx, principal.accountId, service.application.id, baseMessageId);
  if (!base || base.kind !== 'sms_voice') throw new Error(`the built-in message ${baseMessageId} is gone`);
  const template = await createSmsVoiceTemplate(ctx, principal, service.application.id, {
    messageText: base.messageText.replaceAll('{{friendly_name}}', () => brand), pinType: base.pinType, pinLength: base.pinLength, language: base.language,
  });
  if (!template.ok) return invalid('brand', template.failure.text);
  if (await ctx.store.twilio.saveLocaleMessage(principal.accountId, service.application.id, key, template.value.id)) return ok(template.value.id);
  // Another start made it at the same moment: both send with the one recorded.
  return ok((await listed()).find((l) => l.locale === key)?.messageId ?? template.value.id);
}

export async function checkCode(ctx: ServiceContext, principal: Principal, applicationId: string, requestId: string, code: string): Promise<Result<{ requestId: string; status: 'completed' }>> {
  const pin = await pinOf(ctx, principal, applicationId, requestId);
  // Vonage ends a request at its right code, whatever the application allows after (allowMultiplePinVerifications);
  // a PIN locked with attempts left was canceled (a lock by wrong codes spends the last one), not used up.
  if (!pin || pin.verifiedAt !== null || (pin.lockedAt !== null && pin.attemptsLeft > 0)) return requestNotFound(requestId);
  const outcome = await verifyPin(ctx, principal, pin.id, code);
  if (!outcome.ok) return outcome;
  const { verified, pinError, attemptsRemaining } = outcome.value;
  if (verified) return ok({ requestId, status: 'completed' });
  if (pinError === 'WRONG_PIN' && attemptsRemaining > 0) return fail('INVALID_REQUEST', 'The code you provided does not match the expected value.', { dialectCode: 'invalid-code' });
  if (pinError === 'WRONG_PIN' || pinError === 'NO_MORE_PIN_ATTEMPTS') {
    return fail('PIN_ENDED', 'An incorrect code has been provided too many times. Workflow terminated.', { dialectCode: 'expired' });
  }
  if (pinError === 'TTL_EXPIRED') return fail('PIN_ENDED', `Request ${requestId} has expired. Workflow terminated.`, { dialectCode: 'expired' });
  return requestNotFound(requestId);
}

/** Cancels a request in flight: the engine's cancel (the Twilio dialect's), so every dialect sees it canceled. */
export async function cancelVerification(ctx: ServiceContext, principal: Principal, applicationId: string, requestId: string): Promise<Result<null>> {
  const pin = await pinOf(ctx, principal, applicationId, requestId);
  if (!pin) return requestNotFound(requestId);
  const canceled = await updateVerification(ctx, principal, serviceSid(applicationId), verificationSid(pin.id), 'canceled');
  return canceled.ok ? ok(null) : requestNotFound(requestId);
}

/** Sends the next channel of the request's workflow now, instead of after `channel_timeout`. */
export async function nextWorkflow(ctx: ServiceContext, principal: Principal, applicationId: string, requestId: string): Promise<Result<null>> {
  const pin = await pinOf(ctx, principal, applicationId, requestId);
  if (!pin || !isDeliverable(pin, ctx.clock())) return requestNotFound(requestId);
  return inUnitOfWork(ctx, principal, async (unit) => {
    if (!(await ctx.store.workflows.advance(pin.id, ctx.clock()))) return fail('PIN_ENDED', 'There are no more events left to trigger.', { dialectCode: 'conflict' });
    unit.audit({ event: 'pin.workflow.next', applicationId, pinId: pin.id, destination: pin.destination });
    ctx.workflowStepDue?.();
    return ok(null);
  });
}
