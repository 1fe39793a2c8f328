// The brute-force budget of an application, from its configuration and its templates: how likely
// a guesser is to hit a PIN, per PIN and per destination per day, at the limits configured.
import type { ApplicationRequest } from '../../src/client/index.js';
import { parseDuration, parseRateLimit } from '../../src/domain/durations.js';

const ALPHABET_SIZE: Record<string, number> = { NUMERIC: 10, ALPHA: 26, HEX: 16, ALPHANUMERIC: 36 };
const DAY = 86_400_000;

export interface Budget {
  pinSpace: number;
  weakest: { pinType: string; pinLength: number };
  attemptsPerPin: number;
  pinsPerDay: number;
  guessesPerDay: number;
  perPin: number;
  perDestinationDay: number;
}

function perDay(limit: string | undefined): number {
  const parsed = limit === undefined ? null : parseRateLimit(limit);
  if (!parsed) return Infinity;
  return Math.ceil(parsed.count * Math.max(1, DAY / parsed.windowMs));
}

export function bruteForceBudget(configuration: NonNullable<ApplicationRequest['configuration']>, templates: Array<{ pinType: string; pinLength: number }>): Budget | null {
  const weakest = templates.map((t) => ({ ...t, space: (ALPHABET_SIZE[t.pinType] ?? 10) ** t.pinLength })).sort((a, b) => a.space - b.space)[0];
  const attempts = configuration.pinAttempts ?? 10;
  if (!weakest || !Number.isFinite(attempts) || attempts < 1) return null;
  const pinsPerDay = perDay(configuration.sendPinPerPhoneNumberLimit);
  const guessesPerDay = Math.min(attempts * pinsPerDay, perDay(configuration.verifyPinLimit));
  return {
    pinSpace: weakest.space, weakest: { pinType: weakest.pinType, pinLength: weakest.pinLength }, attemptsPerPin: attempts,
    pinsPerDay, guessesPerDay, perPin: Math.min(1, attempts / weakest.space), perDestinationDay: Math.min(1, guessesPerDay / weakest.space),
  };
}

export function oneIn(probability: number): string {
  if (probability >= 1) return 'certain';
  if (probability <= 0) return 'never';
  return `1 in ${Math.round(1 / probability).toLocaleString()}`;
}

export function lifetime(ttl: string): string {
  const ms = parseDuration(ttl);
  return ms === null ? ttl : ms >= DAY ? `${ms / DAY} d` : ms >= 3_600_000 ? `${ms / 3_600_000} h` : ms >= 60_000 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}
