// Use cases of sending and resending PINs. A send checks the whole request, then in one
// transaction consumes the send limits and writes the PIN with its outbox row; the delivery worker
// renders and delivers it afterwards, so a crash never loses an acknowledged send.
import { randomUUID } from 'node:crypto';
import { limitKeyDestination, normalizeEmailAddress, normalizePhoneNumber, phoneCountry, validateEmailSender } from '../domain/destinations.js';
import { parseDuration, parseRateLimit } from '../domain/durations.js';
import { FieldErrors, fail, ok, pinNotFound, type Result } from '../domain/errors.js';
import { withAutofill } from '../domain/autofill.js';
import { generatePin, generatePinId } from '../domain/pin-generation.js';
import { validateSmsSender } from '../domain/sender-ids.js';
import { missingPlaceholders, renderedSmsInfo, validatePlaceholderValues } from '../domain/template-rendering.js';
import type { ApplicationRecord, Channel, DeliveryRequest, DialectStart, MessageTemplateRecord, NewPin, PinRecord, RateLimitOutcome } from '../store/store.js';
import { isDeliverable } from '../domain/pin-lifecycle.js';
import type { AuditEvent } from './audit-log.js';
import type { Principal, ServiceContext } from './context.js';
import { readApplication, readMessageTemplate } from './effective-records.js';
import { refusingLimit, tooManyRequests, type NamedLimit } from './limit-refusals.js';
import { checkSendGuards, countBreakerSend, type GuardPass } from './security.js';
import { assessSend, priceRiskDecision, riskRefusal, riskWriteOf, type ClientSignals, type RiskCheck } from './risk.js';
import { riskSummary, type RiskAssessment } from '../domain/risk-score.js';
import { isLocaleTag } from '../domain/template-locales.js';
import { appHashTooLong } from './template-autofill.js';
import { budgetRefusal, plannedBudgetCharges, refusingCharge, reportBudgetSpend } from './budgets.js';
import type { NamedBudgetCharge } from '../domain/budgets.js';
import { testNumberAuditReason, testNumberCode } from './test-numbers.js';
import { inUnitOfWork, type UnitOfWork } from './unit-of-work.js';
import { planSend, workflowPrincipal } from './workflow-plan.js';
import type { WorkflowStepClaim } from '../store/workflow-store.js';

export interface SendPinInput {
  applicationId: string;
  messageId: string;
  to: string;
  from?: string;
  placeholders?: Record<string, string>;
  landingPagePlaceholders?: Record<string, string>;
  /** A code the caller chose (Twilio's CustomCode) instead of one generated here; stored as any PIN is. */
  pin?: string;
  /** The locale the caller asked for (a dialect's locale field): picks among the template's locale texts at delivery. */
  locale?: string;
  /**
   * Limits a dialect adds to this send (a Twilio Service's Rate Limit Buckets), consumed with the
   * send's own in its write: a send refused by any of them, or by anything else, counts in none.
   */
  dialectLimits?: readonly NamedLimit[];
  /** The dialect verification the PIN starts (a Twilio start), written with the PIN or not at all. */
  dialect?: (pin: NewPin['pin'], deliveryId: string | undefined) => DialectStart;
  /** The end user's address and device or session, when the caller names them: signals of the risk score (risk.ts). */
  client?: ClientSignals;
}

export interface ResendPinInput {
  placeholders?: Record<string, string>;
  /** As SendPinInput's: the locale of this message. */
  locale?: string;
  landingPagePlaceholders?: Record<string, string>;
  /**
   * Limits a dialect adds to this send (a Twilio Service's Rate Limit Buckets), consumed with the
   * send's own in its write: a send refused by any of them, or by anything else, counts in none.
   */
  dialectLimits?: readonly NamedLimit[];
}

export interface SendOutcome {
  pinId: string;
  to: string;
  /** True when the message was durably queued for a transport; false when the channel is off. */
  queued: boolean;
  /** The outbox row's id: Infobip's externalMessageId for delivery tracking. */
  deliveryId: string | undefined;
  /** When sendPinPerPhoneNumberLimit lets the next resend to this destination through (epoch ms; now while it has room). */
  nextResendAt: number;
  /** Sent to a test number: accepted and recorded, nothing queued; answered as a message sent. */
  testNumber: boolean;
  /** The send's risk assessment; undefined when the application scores nothing (mode off, email). */
  risk?: RiskAssessment;
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
  if (input.locale !== undefined && !isLocaleTag(input.locale)) errors.add('locale', 'must be a BCP-47 language tag such as es-mx');
  const landing = validatePlaceholderValues(input.landingPagePlaceholders ?? {});
  for (const [field, messages] of Object.entries(landing)) for (const m of messages) errors.add(field.replace(/^placeholders/, 'landingPagePlaceholders'), m);
}

/** The texts a message will be rendered from, so that a placeholder the request leaves unfilled is caught now, not at delivery. */
async function templateTexts(ctx: ServiceContext, template: MessageTemplateRecord): Promise<string[] | null> {
  // Any of its locale texts may be picked at delivery: each must be fillable.
  if (template.kind === 'sms_voice') return [template.messageText, ...(template.texts ?? []).map((t) => t.text)];
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

/**
 * One send must not cost dozens of SMS: long placeholder values, or a placeholder the template repeats,
 * can make the message many billed parts. Measured on the message rendered in memory, as delivery will.
 */
function checkSmsSize(ctx: ServiceContext, template: MessageTemplateRecord, channel: Channel, placeholders: Record<string, string>, errors: FieldErrors): void {
  if (channel !== 'sms' || template.kind !== 'sms_voice') return;
  // Measured on the longest text an SMS may be sent with: the default or a locale's.
  const texts = [template.messageText, ...(template.texts ?? []).filter((t) => t.channel !== 'voice').map((t) => t.text)];
  if (texts.some((text) => missingPlaceholders(text, placeholders).length > 0)) return;
  const info = texts.map((text) => renderedSmsInfo(withAutofill(text, template.autofill), template.pinLength, placeholders)).reduce((a, b) => (b.segments > a.segments || (b.segments === a.segments && b.units > a.units) ? b : a));
  if (template.autofill && appHashTooLong(template, template.autofill, placeholders)) {
    errors.add('placeholders', `with these values the SMS would be longer than 140 bytes (${info.units} ${info.encoding} characters), which Android's SMS Retriever does not read; the message template has an app hash`);
    return;
  }
  if (info.segments <= ctx.smsMaxSegments) return;
  errors.add('placeholders', `the SMS would take ${info.segments} parts (${info.units} ${info.encoding} characters with these values); at most ${ctx.smsMaxSegments} are sent per message`);
}

/** sendPinPerPhoneNumberLimit for one destination of the application, if it has one. */
export function destinationSendLimit(app: ApplicationRecord, destination: string): NamedLimit | undefined {
  const perDestination = parseRateLimit(app.configuration.sendPinPerPhoneNumberLimit);
  if (!perDestination) return undefined;
  return { key: `send:to:${app.id}:${limitKeyDestination(destination)}`, limit: perDestination.count, windowMs: perDestination.windowMs, reason: 'SEND_LIMIT_DESTINATION' };
}

/** Infobip's two send limits: per application, and per application and destination. */
function sendLimits(app: ApplicationRecord, destination: string): NamedLimit[] {
  const perApp = parseRateLimit(app.configuration.sendPinPerApplicationLimit);
  const perDestination = destinationSendLimit(app, destination);
  const checks: NamedLimit[] = [];
  if (perDestination) checks.push(perDestination);
  if (perApp) checks.push({ key: `send:app:${app.id}`, limit: perApp.count, windowMs: perApp.windowMs, reason: 'SEND_LIMIT_APPLICATION' });
  return checks;
}

/** How each limit of a send is counted in the metrics and named in the audit log. */
const SEND_LIMIT_REPORTS: Record<NamedLimit['reason'], { metric: (ctx: ServiceContext) => void; audit: string }> = {
  SEND_LIMIT_DESTINATION: { metric: (ctx) => ctx.metrics.rateLimited('sendPinPerPhoneNumberLimit'), audit: 'send:to' },
  SEND_LIMIT_APPLICATION: { metric: (ctx) => ctx.metrics.rateLimited('sendPinPerApplicationLimit'), audit: 'send:app' },
  GUARD_IP_LIMIT: { metric: (ctx) => ctx.metrics.securityRefusal('ip_limit'), audit: 'send:ip' },
  GUARD_PREFIX_LIMIT: { metric: (ctx) => ctx.metrics.securityRefusal('prefix_limit'), audit: 'send:prefix' },
  VERIFY_LIMIT: { metric: (ctx) => ctx.metrics.rateLimited('verifyPinLimit'), audit: 'verify' },
  SERVICE_RATE_LIMIT: { metric: () => undefined, audit: 'twilio:bucket' },
};

/** A send or a resend that passed every check: what it consumes with its write and counts after it. */
interface Admission {
  kind: 'send' | 'resend';
  app: ApplicationRecord;
  template: MessageTemplateRecord;
  channel: Channel;
  to: string;
  /** The PIN a resend delivers again; a send has none yet. */
  pinId?: string;
  /** Infobip's send limits, the guards' own and the dialect's, consumed atomically with the write. */
  limits: NamedLimit[];
  guard: GuardPass;
  risk: RiskCheck | undefined;
  /** The budget caps the message is charged against at its planned price, consumed with the write like the limits (none when nothing is queued). */
  budget: NamedBudgetCharge[];
}

/**
 * The checks every send and every resend pass, in one order and with one set of answers: the
 * application is enabled, the message can be rendered from the request at a bounded cost, then the
 * anti-fraud guards.
 * A resend is a message the operator pays for like a send, so any check it skipped would be a way
 * around that check. `template` is undefined when the request names none usable (its error is in
 * `errors` already).
 */
async function admit(
  unit: UnitOfWork, attempt: Pick<Admission, 'kind' | 'app' | 'channel' | 'to' | 'pinId'>,
  template: MessageTemplateRecord | undefined, placeholders: Record<string, string>, errors: FieldErrors, dialectLimits: readonly NamedLimit[] = [], client: ClientSignals = {},
): Promise<Result<Admission>> {
  const { ctx } = unit;
  const { kind, app, channel, to } = attempt;
  if (!app.enabled) errors.add('applicationId', `application ${app.id} is disabled`);
  if (template) {
    await checkTemplateFilled(ctx, template, placeholders, errors);
    checkSmsSize(ctx, template, channel, placeholders, errors);
  }
  if (!errors.empty || !template) return errors.result();

  // The application's anti-fraud guards (off unless turned on): after the body, before the limits.
  const guard = await checkSendGuards(unit, app, channel, to, ctx.clock());
  if (!guard.ok) {
    unit.audit({ event: `pin.${kind}.refused`, applicationId: app.id, ...(attempt.pinId !== undefined ? { pinId: attempt.pinId } : {}), destination: to, reason: guard.guard });
    return { ok: false, failure: guard.failure };
  }
  // The risk score, after the operator's own rules: a block refuses before anything is queued or counted.
  const now = ctx.clock();
  const risk = await assessSend(ctx, unit.principal, app, channel, to, kind, now, client);
  // A block's or shadow block's decision records what the message costs: what the block saved.
  if (risk) await priceRiskDecision(ctx, app.id, risk, { channel, to, template, placeholders });
  if (risk?.assessment.decision === 'block') {
    // Counted as an attempt: velocity measures what is asked for, so a blocked run keeps its count.
    await ctx.store.risk.write(riskWriteOf(unit.principal, app, kind, to, risk, attempt.pinId, now, 'attempt'));
    ctx.metrics.securityRefusal('risk_score');
    unit.audit({ event: `pin.${kind}.refused`, applicationId: app.id, ...(attempt.pinId !== undefined ? { pinId: attempt.pinId } : {}), destination: to, reason: `risk_score:${risk.assessment.score}` });
    return { ok: false, failure: riskRefusal(risk.assessment) };
  }
  return ok({ ...attempt, template, limits: [...sendLimits(app, to), ...guard.limits, ...dialectLimits], guard, risk, budget: [] });
}

interface AdmittedMessage {
  pinId: string;
  queued: boolean;
  deliveryId: string | undefined;
  testNumber: boolean;
}

/** The audit entry of an admitted send's or resend's outcome: the message, or the limit that refused it. */
function outcomeAuditEvent(admission: Admission, outcome: RateLimitOutcome, message: AdmittedMessage): AuditEvent {
  const { kind, app, channel, to } = admission;
  const { pinId, testNumber } = message;
  if (!outcome.allowed) {
    const charge = refusingCharge(admission.budget, outcome);
    const reason = charge ? `budget:${charge.scope}:${charge.period}${charge.country === null ? '' : `:${charge.country}`}` : SEND_LIMIT_REPORTS[refusingLimit(admission.limits, outcome).reason].audit;
    return { event: `pin.${kind}.refused`, applicationId: app.id, ...(admission.pinId !== undefined ? { pinId } : {}), destination: to, reason: testNumberAuditReason(reason, testNumber) };
  }
  return { event: `pin.${kind}`, applicationId: app.id, pinId, destination: to, reason: testNumberAuditReason(channel, testNumber) };
}

/** The answer to an admitted send or resend once its write is done (and audited): a limit's refusal, or the message counted and handed to the worker. */
async function settle(unit: UnitOfWork, admission: Admission, outcome: RateLimitOutcome, message: AdmittedMessage, now: number): Promise<Result<SendOutcome>> {
  const { ctx } = unit;
  const { kind, app, channel, to, guard, risk } = admission;
  const { pinId, queued, deliveryId, testNumber } = message;
  if (!outcome.allowed) {
    const charge = refusingCharge(admission.budget, outcome);
    if (charge) return budgetRefusal(ctx, app.accountId, charge, outcome);
    const { reason } = refusingLimit(admission.limits, outcome);
    SEND_LIMIT_REPORTS[reason].metric(ctx);
    return tooManyRequests(reason, outcome);
  }
  ctx.metrics.pinSent(channel, kind, queued);
  await reportBudgetSpend(ctx, app.accountId, admission.budget, outcome, pinId);
  // The worker is woken before anything else is awaited: this node's claim then races other nodes'
  // (woken by the commit's NOTIFY) on equal terms. A claim waits for the disk itself, so nothing is
  // handed to a transport before the PIN is durable.
  if (queued) ctx.messageQueued();
  // A test number's sends are never verified by a real person: counted, they would trip the conversion breaker.
  if (!testNumber && guard.breakerCountry !== undefined && guard.settings) await countBreakerSend(ctx, app, guard.breakerCountry, guard.settings, now);
  // A send's assessment was written with its PIN (queuePin); a resend's is written here.
  if (risk && kind === 'resend') await ctx.store.risk.write(riskWriteOf(unit.principal, app, kind, to, risk, pinId, now, message.testNumber ? 'none' : 'send'));
  // From the write that consumed the limits: no query of its own.
  const destinationLimit = admission.limits.find((l) => l.reason === 'SEND_LIMIT_DESTINATION');
  const nextResendAt = (destinationLimit && outcome.nextAllowedAt?.[destinationLimit.key]) ?? now;
  return ok({ pinId, to, queued, deliveryId, nextResendAt, testNumber, ...(risk ? { risk: risk.assessment } : {}) });
}

/** `within`: the unit of work of a use case the send is part of (a Twilio start). */
export function sendPin(ctx: ServiceContext, principal: Principal, channel: Channel, input: SendPinInput, within?: UnitOfWork): Promise<Result<SendOutcome>> {
  // The PIN, its message and the audit entry are committed without waiting for the disk: the unit's
  // one wait (one fsync shared with the requests in flight) makes them durable before the send is answered.
  return inUnitOfWork(ctx, principal, (unit) => queuePin(unit, channel, input), within);
}

async function queuePin(unit: UnitOfWork, requested: Channel, input: SendPinInput): Promise<Result<SendOutcome>> {
  const { ctx, principal } = unit;
  const errors = new FieldErrors();
  const to = checkDestination(requested, input.to, errors);
  if (input.from !== undefined) errors.add('from', isPhoneChannel(requested) ? validateSmsSender(input.from) : validateEmailSender(input.from));
  checkPlaceholders(input, errors);

  const app = await readApplication(ctx, principal.accountId, input.applicationId);
  if (!app) {
    errors.add('applicationId', `application ${input.applicationId} does not exist`);
    return errors.result();
  }
  const wanted = isPhoneChannel(requested) ? 'sms_voice' : 'email';
  const template = await readMessageTemplate(ctx, principal.accountId, app.id, input.messageId);
  if (!template) errors.add('messageId', `message ${input.messageId} does not exist in application ${input.applicationId}`);
  else if (template.kind !== wanted) {
    errors.add('messageId', wanted === 'email' ? 'is an SMS/voice message; send it with /2fa/2/pin or /2fa/2/pin/voice' : 'is an email message; send it with /2fa/2/pin/email');
  }
  // Under a workflow the PIN goes out on its first step's channel, whichever dialect asked.
  const workflow = planSend(ctx, app, requested);
  const channel = workflow?.channel ?? requested;
  const admission = await admit(unit, { kind: 'send', app, channel, to }, template?.kind === wanted ? template : undefined, input.placeholders ?? {}, errors, input.dialectLimits, input.client);
  if (!admission.ok) return admission;

  const now = ctx.clock();
  const ttl = parseDuration(app.configuration.pinTimeToLive) ?? 15 * 60_000;
  const pinId = generatePinId();
  if (workflow) await ctx.store.workflows.schedule(principal.accountId, pinId, workflow.steps(now), now);
  const { pinType, pinLength, id: messageId } = admission.value.template;
  // A test number's PIN is its fixed code, stored like any PIN, and nothing is queued for delivery.
  const fixedCode = await testNumberCode(ctx, principal.accountId, to);
  const testNumber = fixedCode !== undefined;
  const pin = fixedCode ?? input.pin ?? generatePin(pinType, pinLength);
  const queued = !testNumber && ctx.channelConfigured(channel);
  const deliveryId = queued ? randomUUID() : undefined;
  const request = deliveryRequestOf(input);
  const message: AdmittedMessage = { pinId, queued, deliveryId, testNumber };
  // Only a message that will be delivered costs anything (a test number's, or a channel's that is off, does not).
  if (queued) admission.value.budget = await plannedBudgetCharges(ctx, principal.accountId, app.id, { channel, to, template: admission.value.template, placeholders: request.placeholders }, now);
  const newPin: NewPin['pin'] = {
    id: pinId, accountId: principal.accountId, applicationId: app.id, messageId, channel, destination: to,
    pinHash: ctx.keyring.hashPin(pinId, pin), pinCiphertext: ctx.keyring.encryptPin(pinId, pin),
    attemptsLeft: app.configuration.pinAttempts, allowMultipleVerifications: app.configuration.allowMultiplePinVerifications,
    createdAt: now, expiresAt: now + ttl, deliveryStatus: queued ? 'queued' : 'not_sent',
    country: isPhoneChannel(channel) ? phoneCountry(to) ?? null : null, testNumber,
    ...(admission.value.risk ? { risk: JSON.stringify(riskSummary(admission.value.risk.assessment)) } : {}),
  };
  const { risk } = admission.value;
  const outcome = await unit.write((result: RateLimitOutcome) => outcomeAuditEvent(admission.value, result, message), (audit) => ctx.store.createPin({
    pin: newPin,
    ...(deliveryId ? { outbox: { id: deliveryId, request } } : {}),
    ...(input.dialect ? { dialect: input.dialect(newPin, deliveryId) } : {}),
    // Its hits and decision, in the PIN's own write (a test number's sends count in no baseline).
    ...(risk ? { risk: riskWriteOf(principal, app, 'send', to, risk, pinId, now, testNumber ? 'none' : 'send') } : {}),
    ...(admission.value.budget.length > 0 ? { budget: admission.value.budget } : {}),
  }, admission.value.limits, now, audit));
  if (workflow && !outcome.allowed) await ctx.store.workflows.discard(pinId);
  return settle(unit, admission.value, outcome, message, now);
}

function pinEnded(pinId: string) {
  return fail('PIN_ENDED', `PIN ${pinId} can no longer be resent: it has been verified, has expired or has run out of attempts; send a new PIN`);
}

/**
 * A PIN that may have reached a real phone is never copied into the local inbox, where any manage
 * key reads it: a resend on another channel whose transport includes log:// is refused.
 */
function inboxResendRefusal(ctx: ServiceContext, pin: PinRecord, channel: Channel) {
  const first = ctx.channelDelivery?.[pin.channel];
  const next = ctx.channelDelivery?.[channel];
  if (channel === pin.channel || first === undefined || first === 'inbox' || next === undefined || next === 'real') return undefined;
  return fail('RESEND_INTO_INBOX', `PIN ${pin.id} was sent by ${pin.channel} through a real transport and cannot be resent by ${channel}: the ${channel} channel delivers through log://, `
    + `which would put the PIN in the local inbox, readable through the API; configure a real ${channel} transport (or none://) to resend by ${channel}`);
}

/** Resend delivers the same PIN under the same pinId; it never resets the attempts or the expiry. */
export function resendPin(ctx: ServiceContext, principal: Principal, pinId: string, channel: Channel, input: ResendPinInput, within?: UnitOfWork): Promise<Result<SendOutcome>> {
  // Whatever it answers (the PIN as read, the resend queued, the audit entry) is durable first.
  return inUnitOfWork(ctx, principal, (unit) => queueResend(unit, pinId, channel, input), within);
}

async function queueResend(unit: UnitOfWork, pinId: string, channel: Channel, input: ResendPinInput): Promise<Result<SendOutcome>> {
  const { ctx, principal } = unit;
  const pin: PinRecord | undefined = await ctx.store.getPin(principal.accountId, pinId);
  if (!pin) return pinNotFound(pinId);
  if (isPhoneChannel(channel) !== isPhoneChannel(pin.channel)) {
    return fail('RESEND_CHANNEL_MISMATCH', pin.channel === 'email'
      ? `PIN ${pinId} was sent by email; resend it with /2fa/2/pin/${pinId}/resend/email`
      : `PIN ${pinId} was sent to a phone number; resend it with /2fa/2/pin/${pinId}/resend or /resend/voice`);
  }
  const intoInbox = pin.testNumber ? undefined : inboxResendRefusal(ctx, pin, channel);
  if (intoInbox) return intoInbox;
  // An ended PIN is answered as such before its body is checked: no placeholder can make it resendable.
  // (The store checks again inside the resend's transaction, which is what makes it a race gate.)
  if (!isDeliverable(pin, ctx.clock())) return pinEnded(pinId);
  const errors = new FieldErrors();
  checkPlaceholders(input, errors);
  return queueAdmittedResend(unit, pin, channel, input, errors);
}

/**
 * A resend whose PIN and request were checked: the send checks (admit), then the write and its answer.
 * `from`: a sender override, which only a workflow step has (its PIN's first message's).
 */
async function queueAdmittedResend(
  unit: UnitOfWork, pin: PinRecord, channel: Channel, input: ResendPinInput & Pick<DeliveryRequest, 'from'>, errors: FieldErrors, workflowStep?: WorkflowStepClaim,
): Promise<Result<SendOutcome>> {
  const { ctx, principal } = unit;
  const pinId = pin.id;
  const app = await readApplication(ctx, principal.accountId, pin.applicationId);
  const template = await readMessageTemplate(ctx, principal.accountId, pin.applicationId, pin.messageId);
  if (!app || !template) return pinNotFound(pinId);
  const admission = await admit(unit, { kind: 'resend', app, channel, to: pin.destination, pinId }, template, input.placeholders ?? {}, errors, input.dialectLimits);
  if (!admission.ok) return admission;

  const now = ctx.clock();
  // A PIN sent to a test number stays undelivered, whatever its list says now.
  const queued = !pin.testNumber && ctx.channelConfigured(channel);
  const deliveryId = queued ? randomUUID() : undefined;
  const request = deliveryRequestOf(input);
  if (queued) admission.value.budget = await plannedBudgetCharges(ctx, principal.accountId, app.id, { channel, to: pin.destination, template: admission.value.template, placeholders: request.placeholders }, now);
  const outcome = await ctx.store.queueResend(pinId, channel, deliveryId ? { id: deliveryId, request } : undefined, admission.value.limits, now, workflowStep, admission.value.budget);
  if ('ended' in outcome) return pinEnded(pinId);
  const message: AdmittedMessage = { pinId, queued, deliveryId, testNumber: pin.testNumber };
  unit.audit(outcomeAuditEvent(admission.value, outcome, message));
  return settle(unit, admission.value, outcome, message, now);
}

/** What a message is rendered from at delivery, besides its PIN and template. */
function deliveryRequestOf(input: Pick<SendPinInput, 'placeholders' | 'from' | 'locale'>): DeliveryRequest {
  return {
    placeholders: input.placeholders ?? {}, ...(input.from !== undefined ? { from: input.from } : {}), ...(input.locale !== undefined ? { locale: input.locale } : {}),
  };
}

/**
 * One step of a PIN's workflow: a resend on the step's channel, through every check a client's
 * resend passes (placeholders, limits, guards, breaker), under the account's name; the step is marked
 * sent in the resend's own transaction. Refused like a resend when the PIN ended or the step's claim
 * was lost. It is rendered with the placeholders and sender of the PIN's first message, which the
 * template may need as much as the first did.
 */
export function resendWorkflowStep(ctx: ServiceContext, pin: PinRecord, step: WorkflowStepClaim, within?: UnitOfWork): Promise<Result<SendOutcome>> {
  return inUnitOfWork(ctx, workflowPrincipal(pin.accountId), async (unit) => {
    const intoInbox = inboxResendRefusal(ctx, pin, step.channel);
    if (intoInbox) return intoInbox;
    const { placeholders, from, locale } = step.firstRequest;
    const errors = new FieldErrors();
    checkPlaceholders({ placeholders }, errors);
    return queueAdmittedResend(unit, pin, step.channel, { placeholders, ...(from !== undefined ? { from } : {}), ...(locale !== undefined ? { locale } : {}) }, errors, step);
  }, within);
}
