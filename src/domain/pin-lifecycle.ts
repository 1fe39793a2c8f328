// A PIN's lifecycle in one place: the states a caller sees, whether a PIN is still live (can be
// verified, resent or delivered), and why a verification found it ended. Send, verify, resend, the
// delivery worker, the in-memory store and the console's queries follow these rules; the SQL stores'
// race gates (the conditional UPDATEs of store/sqlite/ and store/postgres/) repeat the predicates in
// SQL, so that they hold under concurrency too, and test/store/differential.test.ts holds every store
// to the same answers.
//
//   sent ──(right PIN)──> verified        (single-use: no more attempts; multiple: still verifiable)
//     │ ──(last wrong attempt)──> locked
//     └──(TTL passes)──> expired
// Verified, locked and expired PINs have their ciphertext erased: they can never be delivered again.

/** What a PIN's history says of it now (the console and the PIN details). */
export type PinState = 'pending' | 'verified' | 'expired' | 'locked';

/** Infobip's `pinError` of a verification that did not verify. */
export type PinError = 'WRONG_PIN' | 'TTL_EXPIRED' | 'NO_MORE_PIN_ATTEMPTS' | 'ALREADY_VERIFIED';

export interface PinLifecycleFields {
  verifiedAt: number | null;
  lockedAt: number | null;
  attemptsLeft: number;
  expiresAt: number;
}

export function pinState(pin: PinLifecycleFields, now: number): PinState {
  if (pin.verifiedAt !== null) return 'verified';
  if (pin.lockedAt !== null || pin.attemptsLeft === 0) return 'locked';
  if (pin.expiresAt <= now) return 'expired';
  return 'pending';
}

/**
 * Whether the PIN can still be resent or delivered: its ciphertext is there (erased when it was
 * verified, locked or expired) and it is neither verified, locked nor past its expiry.
 */
export function isDeliverable<Pin extends Pick<PinLifecycleFields, 'verifiedAt' | 'lockedAt' | 'expiresAt'> & { pinCiphertext: string | null }>(pin: Pin, now: number): pin is Pin & { pinCiphertext: string } {
  return pin.pinCiphertext !== null && pin.verifiedAt === null && pin.lockedAt === null && pin.expiresAt > now;
}

/**
 * Whether a verification attempt can be counted on the PIN: it is neither expired nor locked, has
 * attempts left, and is not verified unless it allows multiple verifications (the first race gate).
 */
export function acceptsAttempt(pin: PinLifecycleFields & { allowMultipleVerifications: boolean }, now: number): boolean {
  return pin.attemptsLeft > 0 && pin.expiresAt > now && pin.lockedAt === null && (pin.verifiedAt === null || pin.allowMultipleVerifications);
}

/** Why no attempt could be counted on this PIN, read after the conditional update found nothing to do. */
export function endedReason(pin: PinLifecycleFields & { allowMultipleVerifications: boolean }, now: number): PinError {
  if (pin.verifiedAt !== null && !pin.allowMultipleVerifications) return 'ALREADY_VERIFIED';
  if (pin.expiresAt <= now) return 'TTL_EXPIRED';
  return 'NO_MORE_PIN_ATTEMPTS';
}
