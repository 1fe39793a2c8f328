// Use case of verifying a PIN. Every outcome of a counted attempt is a 200 answer; only a request
// refused before it is counted (unknown pinId, verifyPinLimit) is an error.
import { limitKeyDestination } from '../domain/destinations.js';
import { parseRateLimit } from '../domain/durations.js';
import { ok, pinNotFound, type Result } from '../domain/errors.js';
import { endedReason, type PinError } from '../domain/pin-lifecycle.js';
import { auditRequest } from './audit-log.js';
import type { Principal, ServiceContext } from './context.js';
import { readApplication } from './effective-records.js';
import { countBreakerVerify } from './security.js';
import { tooManyRequests, type NamedLimit } from './limit-refusals.js';
import { testNumberAuditReason } from './test-numbers.js';

export interface VerifyOutcome {
  pinId: string;
  msisdn: string;
  verified: boolean;
  attemptsRemaining: number;
  pinError?: PinError;
}


export async function verifyPin(ctx: ServiceContext, principal: Principal, pinId: string, candidate: string): Promise<Result<VerifyOutcome>> {
  const pin = await ctx.store.getPin(principal.accountId, pinId);
  if (!pin) return pinNotFound(pinId);
  const app = await readApplication(ctx, principal.accountId, pin.applicationId);
  const now = ctx.clock();

  const answer = async (verified: boolean, attemptsRemaining: number, pinError?: PinError): Promise<Result<VerifyOutcome>> => {
    ctx.metrics.verification(pin.channel, pinError ?? 'verified');
    // Every verify decision is audited (ASVS 7.2.1 / 16.3.1); the candidate PIN never is.
    await auditRequest(ctx, principal, { event: 'pin.verify', applicationId: pin.applicationId, pinId, destination: pin.destination, reason: testNumberAuditReason(pinError ?? 'verified', pin.testNumber) });
    if (verified && !pin.testNumber) await countBreakerVerify(ctx, pin.applicationId, pin.destination, now);
    // The attempt (and the verified mark or the lock) and the audit entry were committed without
    // waiting for the disk: one wait makes them durable before the decision is answered.
    await ctx.store.durable();
    return ok({ pinId, msisdn: pin.destination, verified, attemptsRemaining, ...(pinError ? { pinError } : {}) });
  };

  // verifyPinLimit counts verification requests per destination, before any attempt is spent.
  const limit = app ? parseRateLimit(app.configuration.verifyPinLimit) : null;
  const limits: NamedLimit[] = limit ? [{ key: `verify:${pin.applicationId}:${limitKeyDestination(pin.destination)}`, limit: limit.count, windowMs: limit.windowMs, reason: 'VERIFY_LIMIT' }] : [];
  // Any string is compared: a wrong length or alphabet is simply a wrong, counted attempt.
  const attempt = await ctx.store.verifyPinAttempt(pin, now, limits, (pinHash) => ctx.keyring.matches(pinHash, pinId, candidate));
  switch (attempt.kind) {
    case 'refused':
      ctx.metrics.rateLimited('verifyPinLimit');
      await auditRequest(ctx, principal, { event: 'pin.verify.refused', applicationId: pin.applicationId, pinId, destination: pin.destination, reason: testNumberAuditReason('verifyPinLimit', pin.testNumber) });
      await ctx.store.durable();
      return tooManyRequests('VERIFY_LIMIT', attempt.outcome);
    case 'ended': {
      const current = attempt.pin ?? pin;
      return answer(false, current.attemptsLeft, endedReason(current, now));
    }
    case 'counted':
      // Verified, or locked by this last wrong attempt: nothing left to deliver.
      if (attempt.verified || (!attempt.matched && attempt.pin.attemptsLeft === 0)) ctx.pinEnded?.(principal.accountId, pinId);
      if (!attempt.matched) return answer(false, attempt.pin.attemptsLeft, 'WRONG_PIN');
      return attempt.verified ? answer(true, attempt.pin.attemptsLeft) : answer(false, attempt.pin.attemptsLeft, 'ALREADY_VERIFIED');
  }
}
