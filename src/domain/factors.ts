// The factor model shared by Twilio Verify's Entities, Factors and Challenges (TOTP and passkeys):
// an entity is a user of the application (an `identity` chosen by the customer), a factor one of the
// user's authenticators, a challenge one sign-in asking a factor for proof. The rules here are pure;
// the rows live in store/factor-store.ts, the use cases in service/factors.ts.
import { randomBytes } from 'node:crypto';

export const FACTOR_TYPES = ['totp', 'passkeys'] as const;
export type FactorType = (typeof FACTOR_TYPES)[number];
export type FactorStatus = 'unverified' | 'verified';
export const CHALLENGE_STATUSES = ['pending', 'expired', 'approved', 'denied'] as const;
export type ChallengeStatus = (typeof CHALLENGE_STATUSES)[number];
/** Why a challenge was answered as it was (Twilio's `responded_reason`): TOTP and passkeys answer `none`. */
export type RespondedReason = 'none' | 'not_needed' | 'not_requested';

/**
 * Wrong answers a factor's verification takes (Twilio: 5, then 429 60310), and a challenge (5, then
 * 429 60308). The attempt is counted before the answer is compared, so no concurrency exceeds them.
 */
export const FACTOR_VERIFICATION_ATTEMPTS = 5;
export const CHALLENGE_ATTEMPTS = 5;
/**
 * Brute force across challenges: each challenge takes 5 codes, but a caller could open challenge
 * after challenge. Every code checked against one factor counts against this sliding window, however
 * many challenges it spreads over; beyond it the factor answers 429 until the window frees a slot.
 * At 10 codes an hour a 6-digit TOTP factor (3 codes valid with skew 1) falls to a guesser with a
 * chance of about 0.07% a day (totpBruteForceBudget).
 */
export const FACTOR_CODE_CHECKS = { limit: 10, windowMs: 60 * 60_000 };

export interface TotpBruteForceBudget {
  codesPerWindow: number;
  windowMinutes: number;
  codesPerChallenge: number;
  codesPerVerification: number;
  /** Worst-case codes a guesser gets checked against one factor in a day. */
  guessesPerFactorPerDay: number;
  /** min(1, guesses × codes valid at once / 10^digits): a union bound over the day's guesses. */
  successProbabilityPerFactorPerDay: number;
}

/** The guesser's odds against one TOTP factor of `codeLength` digits accepting `skew` steps each side. */
export function totpBruteForceBudget(codeLength: number, skew: number): TotpBruteForceBudget {
  const guesses = FACTOR_CODE_CHECKS.limit * Math.ceil(86_400_000 / FACTOR_CODE_CHECKS.windowMs);
  return {
    codesPerWindow: FACTOR_CODE_CHECKS.limit, windowMinutes: FACTOR_CODE_CHECKS.windowMs / 60_000,
    codesPerChallenge: CHALLENGE_ATTEMPTS, codesPerVerification: FACTOR_VERIFICATION_ATTEMPTS,
    guessesPerFactorPerDay: guesses, successProbabilityPerFactorPerDay: Math.min(1, (guesses * (2 * skew + 1)) / 10 ** codeLength),
  };
}

/** An unverified factor is deleted a day after it was made (Twilio: within 1 to 24 hours), by the purge. */
export const UNVERIFIED_FACTOR_TTL_MS = 24 * 3_600_000;

/** Challenge lifetime: Twilio's default (5 minutes) and the most an ExpirationDate may ask (60). */
export const CHALLENGE_DEFAULT_TTL_MS = 5 * 60_000;
export const CHALLENGE_MAX_TTL_MS = 60 * 60_000;

/** Identity: 8 to 64 characters, alphanumerics separated by single dashes (Twilio's rule; no PII). */
const IDENTITY = /^(?=.{8,64}$)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/;
export const isIdentity = (value: string) => IDENTITY.test(value);
export const FRIENDLY_NAME_MAX = 64;
/** Metadata and hidden details: a JSON object of string values, at most 1024 characters as JSON. */
export const METADATA_MAX = 1024;

// SIDs: two letters and 32 random lower-case hex digits. They are the rows' keys, so they must not be
// guessable: one names a user's authenticator.
const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;
export const newEntitySid = () => sid('YE');
export const newFactorSid = () => sid('YF');
export const newChallengeSid = () => sid('YC');
const SID = /^[A-Z]{2}[0-9a-f]{32}$/;
export const isSidOf = (prefix: 'YE' | 'YF' | 'YC', value: string) => value.startsWith(prefix) && SID.test(value);

/** The effective state of a challenge at `now`: a pending one past its expiry is expired. */
export function challengeStatusAt(status: ChallengeStatus, expiresAt: number, now: number): ChallengeStatus {
  return status === 'pending' && expiresAt <= now ? 'expired' : status;
}
