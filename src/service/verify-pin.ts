// Use case of verifying a PIN. Every outcome of a counted attempt is a 200 answer; only a request
// refused before it is counted (unknown pinId, verifyPinLimit) is an error.
import { limitKeyDestination } from '../domain/destinations.js';
import { parseRateLimit } from '../domain/durations.js';
import { ok, pinNotFound, type Result } from '../domain/errors.js';
import { endedReason, type PinError } from '../domain/pin-lifecycle.js';
import type { DialectVerification, PinRecord, VerifyAttempt } from '../store/store.js';
import type { AuditEvent } from './audit-log.js';
import type { Principal, ServiceContext } from './context.js';
import { presentApplication } from './effective-records.js';
import { countBreakerVerify } from './security.js';
import { countRiskVerify } from './risk.js';
import { countRoutedVerification } from './routes.js';
import { tooManyRequests, type NamedLimit } from './limit-refusals.js';
import { testNumberAuditReason } from './test-numbers.js';
import { TWILIO_CHANNEL, twilioVerificationEvent } from './twilio-events.js';
import { inUnitOfWork, type UnitOfWork } from './unit-of-work.js';

export interface VerifyOutcome {
  pinId: string;
  /** The phone number or email address the PIN was sent to (Infobip calls it `msisdn`). */
  destination: string;
  verified: boolean;
  attemptsRemaining: number;
  pinError?: PinError;
}

type Decision = Pick<VerifyOutcome, 'verified' | 'attemptsRemaining' | 'pinError'>;

/** What a counted (or uncountable) attempt answers. */
function decisionOf(pin: PinRecord, attempt: Exclude<VerifyAttempt, { kind: 'refused' }>, now: number): Decision {
  if (attempt.kind === 'ended') {
    const current = attempt.pin ?? pin;
    return { verified: false, attemptsRemaining: current.attemptsLeft, pinError: endedReason(current, now) };
  }
  const attemptsRemaining = attempt.pin.attemptsLeft;
  if (!attempt.matched) return { verified: false, attemptsRemaining, pinError: 'WRONG_PIN' };
  return attempt.verified ? { verified: true, attemptsRemaining } : { verified: false, attemptsRemaining, pinError: 'ALREADY_VERIFIED' };
}

/**
 * `within`: the unit of work of a use case the verification is part of (a Twilio check); `dialect`:
 * that dialect's verification, ended in the attempt's transaction when the attempt verifies the PIN.
 * Without one, a PIN started as a Twilio verification is approved all the same (its
 * verification.approved queued in the attempt's transaction), whichever dialect checked it.
 */
export function verifyPin(ctx: ServiceContext, principal: Principal, pinId: string, candidate: string, within?: UnitOfWork, dialect?: DialectVerification): Promise<Result<VerifyOutcome>> {
  // The attempt (and the verified mark or the lock) and its audit entry are committed without waiting
  // for the disk: the unit makes them durable before the decision is answered.
  return inUnitOfWork(ctx, principal, (unit) => decide(unit, pinId, candidate, dialect), within);
}

async function decide(unit: UnitOfWork, pinId: string, candidate: string, dialect: DialectVerification | undefined): Promise<Result<VerifyOutcome>> {
  const { ctx, principal } = unit;
  const read = await ctx.store.getPinToVerify(principal.accountId, pinId);
  if (!read) return pinNotFound(pinId);
  const { pin } = read;
  const app = read.application && presentApplication(ctx, read.application);
  const now = ctx.clock();
  // The store approves a Twilio verification only where the PIN has one, under its own channel.
  const verification = dialect ?? { approved: twilioVerificationEvent('verification.approved', pin, TWILIO_CHANNEL[pin.channel], 'approved', now) };

  // verifyPinLimit counts verification requests per destination, before any attempt is spent.
  const limit = app ? parseRateLimit(app.configuration.verifyPinLimit) : null;
  const limits: NamedLimit[] = limit ? [{ key: `verify:${pin.applicationId}:${limitKeyDestination(pin.destination)}`, limit: limit.count, windowMs: limit.windowMs, reason: 'VERIFY_LIMIT' }] : [];
  // Every verify decision is audited (ASVS 7.2.1 / 16.3.1); the candidate PIN never is.
  const auditEventOf = (attempt: VerifyAttempt): AuditEvent => attempt.kind === 'refused'
    ? { event: 'pin.verify.refused', applicationId: pin.applicationId, pinId, destination: pin.destination, reason: testNumberAuditReason('verifyPinLimit', pin.testNumber) }
    : { event: 'pin.verify', applicationId: pin.applicationId, pinId, destination: pin.destination, reason: testNumberAuditReason(decisionOf(pin, attempt, now).pinError ?? 'verified', pin.testNumber) };
  // Any string is compared: a wrong length or alphabet is simply a wrong, counted attempt. The
  // store appends the audit entry in the attempt's own transaction where it can (SQLite).
  const attempt = await unit.write(auditEventOf, (audit) => ctx.store.verifyPinAttempt(pin, now, limits, (pinHash) => ctx.keyring.matches(pinHash, pinId, candidate), audit, verification));
  if (attempt.kind === 'refused') {
    ctx.metrics.rateLimited('verifyPinLimit');
    return tooManyRequests('VERIFY_LIMIT', attempt.outcome);
  }
  const decision = decisionOf(pin, attempt, now);
  // Verified, or locked by this last wrong attempt: nothing left to deliver.
  if (attempt.kind === 'counted' && (attempt.verified || (!attempt.matched && attempt.pin.attemptsLeft === 0))) ctx.pinEnded?.(principal.accountId, pinId);
  ctx.metrics.verification(pin.channel, decision.pinError ?? 'verified');
  // A test number's verifications are not a real person's: they stay out of the conversion breaker.
  if (decision.verified && !pin.testNumber) {
    await countBreakerVerify(ctx, pin.applicationId, pin.destination, now);
    await countRiskVerify(ctx, pin.applicationId, pin.destination, now);
    await countRoutedVerification(ctx, pin);
  }
  return ok({ pinId, destination: pin.destination, ...decision });
}
