// Anti-fraud settings of one application (configured under /api/v1/applications/{appId}/security,
// never inside Infobip's bodies) and the brute-force budget that follows from an application's
// configuration. Everything is off until `enabled` is set, so Infobip-compatible behaviour is the
// default.
import { parseDuration, parseRateLimit, validateLimit, ONE_DAY_MS } from './durations.js';
import { FieldErrors } from './errors.js';
import { PIN_ALPHABETS, type PinType } from './pin-generation.js';
import type { ApplicationConfiguration } from './application-rules.js';

export interface ConversionBreakerSettings {
  enabled: boolean;
  /** The window sends and verifications are counted over, e.g. "1h". */
  window: string;
  /** Sends to one country in the window before the rate is judged at all. */
  minSends: number;
  /** Verified share of those sends (0 to 1) below which the country is blocked. */
  minConversionRate: number;
  /** How long a tripped block lasts, e.g. "1h". */
  blockFor: string;
}

export interface SecuritySettings {
  /** Master switch: none of the guards below runs while it is false. */
  enabled: boolean;
  /** ISO 3166-1 alpha-2 codes; when not empty, phone PINs go only to these countries. */
  allowedCountries: string[];
  blockedCountries: string[];
  /** Leading digits of the international number (country code included); when not empty, only these. */
  allowedPrefixes: string[];
  blockedPrefixes: string[];
  /** Refuse premium-rate and shared-cost numbers (the costly targets of SMS pumping). */
  refusePremiumNumbers: boolean;
  /** Sends per client address ("10/1h"; IPv6 counted per /64), or null for no limit. */
  perIpSendLimit: string | null;
  /** Sends per number range (the number without its last 4 digits), or null for no limit. */
  perPrefixSendLimit: string | null;
  conversionBreaker: ConversionBreakerSettings;
}

export const DEFAULT_SECURITY_SETTINGS: Readonly<SecuritySettings> = Object.freeze({
  enabled: false,
  allowedCountries: [],
  blockedCountries: [],
  allowedPrefixes: [],
  blockedPrefixes: [],
  refusePremiumNumbers: true,
  perIpSendLimit: null,
  perPrefixSendLimit: null,
  conversionBreaker: Object.freeze({ enabled: false, window: '1h', minSends: 20, minConversionRate: 0.1, blockFor: '1h' }),
}) as Readonly<SecuritySettings>;

export type SecuritySettingsPatch = Partial<Omit<SecuritySettings, 'conversionBreaker'>> & { conversionBreaker?: Partial<ConversionBreakerSettings> };

const LIST_MAX = 300;

function checkCountries(field: string, values: string[], errors: FieldErrors): string[] {
  if (values.length > LIST_MAX) errors.add(field, `at most ${LIST_MAX} entries`);
  const out = values.map((v) => (typeof v === 'string' ? v.toUpperCase() : v));
  for (const v of out) if (typeof v !== 'string' || !/^[A-Z]{2}$/.test(v)) errors.add(field, `${String(v)} is not an ISO 3166-1 alpha-2 country code such as CH`);
  return [...new Set(out)];
}

function checkPrefixes(field: string, values: string[], errors: FieldErrors): string[] {
  if (values.length > LIST_MAX) errors.add(field, `at most ${LIST_MAX} entries`);
  for (const v of values) if (typeof v !== 'string' || !/^[1-9][0-9]{0,14}$/.test(v)) errors.add(field, `${String(v)} is not a number prefix: digits of the international number, country code first, e.g. 4179`);
  return [...new Set(values)];
}

/** Applies `patch` on top of `base` (fields left out keep their values), checking each given field. */
export function mergeSecuritySettings(base: SecuritySettings, patch: SecuritySettingsPatch, errors: FieldErrors): SecuritySettings {
  const merged: SecuritySettings = { ...base, conversionBreaker: { ...base.conversionBreaker } };
  if (patch.enabled !== undefined) merged.enabled = patch.enabled;
  if (patch.refusePremiumNumbers !== undefined) merged.refusePremiumNumbers = patch.refusePremiumNumbers;
  if (patch.allowedCountries !== undefined) merged.allowedCountries = checkCountries('allowedCountries', patch.allowedCountries, errors);
  if (patch.blockedCountries !== undefined) merged.blockedCountries = checkCountries('blockedCountries', patch.blockedCountries, errors);
  if (patch.allowedPrefixes !== undefined) merged.allowedPrefixes = checkPrefixes('allowedPrefixes', patch.allowedPrefixes, errors);
  if (patch.blockedPrefixes !== undefined) merged.blockedPrefixes = checkPrefixes('blockedPrefixes', patch.blockedPrefixes, errors);
  for (const field of ['perIpSendLimit', 'perPrefixSendLimit'] as const) {
    const value = patch[field];
    if (value === undefined) continue;
    if (value !== null) errors.add(field, validateLimit(value, ONE_DAY_MS));
    merged[field] = value;
  }
  const breaker = patch.conversionBreaker;
  if (breaker !== undefined) {
    const b = merged.conversionBreaker;
    if (breaker.enabled !== undefined) b.enabled = breaker.enabled;
    for (const field of ['window', 'blockFor'] as const) {
      const value = breaker[field];
      if (value === undefined) continue;
      const ms = parseDuration(value);
      if (ms === null || ms > ONE_DAY_MS) errors.add(`conversionBreaker.${field}`, 'must be a duration such as 30m or 1h, at most one day');
      b[field] = value;
    }
    if (breaker.minSends !== undefined) {
      if (!Number.isInteger(breaker.minSends) || breaker.minSends < 1 || breaker.minSends > 1_000_000) errors.add('conversionBreaker.minSends', 'must be a whole number from 1 to 1000000');
      b.minSends = breaker.minSends;
    }
    if (breaker.minConversionRate !== undefined) {
      if (typeof breaker.minConversionRate !== 'number' || !(breaker.minConversionRate >= 0 && breaker.minConversionRate <= 1)) errors.add('conversionBreaker.minConversionRate', 'must be a number from 0 to 1');
      b.minConversionRate = breaker.minConversionRate;
    }
  }
  return merged;
}

/** Settings as stored (JSON) read back over the defaults, so settings saved by an older version gain new fields' defaults. */
export function settingsFromJson(json: string | undefined): SecuritySettings {
  const defaults: SecuritySettings = { ...DEFAULT_SECURITY_SETTINGS, conversionBreaker: { ...DEFAULT_SECURITY_SETTINGS.conversionBreaker } };
  if (json === undefined) return defaults;
  const stored = JSON.parse(json) as Partial<SecuritySettings>;
  return { ...defaults, ...stored, conversionBreaker: { ...defaults.conversionBreaker, ...(stored.conversionBreaker ?? {}) } };
}

/** Above this worst-case chance per destination and day the security endpoint warns. */
export const BRUTE_FORCE_WARNING_THRESHOLD = 1 / 10_000;

export interface BruteForceBudget {
  /** The weakest template: fewest possible PINs. Null when the application has no template yet. */
  weakestTemplate: { messageId: string; pinType: PinType; pinLength: number } | null;
  /** alphabet^length of that template. */
  pinSpace: number | null;
  /** Wrong guesses one PIN admits (pinAttempts). */
  attemptsPerPin: number;
  /** Worst-case PINs sent to one destination per day (sendPinPerPhoneNumberLimit). */
  pinsPerDestinationPerDay: number;
  /** Worst-case counted guesses at one destination per day: attempts × PINs, capped by verifyPinLimit. */
  guessesPerDestinationPerDay: number;
  /** attemptsPerPin / pinSpace. */
  successProbabilityPerPin: number | null;
  /** min(1, guessesPerDestinationPerDay / pinSpace): a union bound over the day's guesses. */
  successProbabilityPerDestinationPerDay: number | null;
  threshold: number;
  warning: string | null;
}

function perDay(limit: string): number {
  const parsed = parseRateLimit(limit);
  if (!parsed) return Infinity;
  return parsed.count * Math.max(1, Math.ceil(ONE_DAY_MS / parsed.windowMs));
}

/**
 * The worst case for a guesser who can trigger sends to one destination as often as the limits let
 * them and spends every attempt: P(per PIN) = a / N and P(per destination and day) ≤ g / N, with N
 * the number of possible PINs, a = pinAttempts, and g the guesses counted in a day (a per PIN times
 * the PINs sendPinPerPhoneNumberLimit lets through, no more than verifyPinLimit admits).
 */
export function bruteForceBudget(configuration: ApplicationConfiguration, templates: { id: string; pinType: PinType; pinLength: number }[]): BruteForceBudget {
  const attemptsPerPin = configuration.pinAttempts;
  const pinsPerDay = perDay(configuration.sendPinPerPhoneNumberLimit);
  const verifiesPerDay = perDay(configuration.verifyPinLimit);
  const guesses = Math.min(attemptsPerPin * pinsPerDay, verifiesPerDay);
  const weakest = templates
    .map((t) => ({ t, space: PIN_ALPHABETS[t.pinType].length ** t.pinLength }))
    .sort((x, y) => x.space - y.space)[0];
  const space = weakest?.space ?? null;
  const perPin = space === null ? null : Math.min(1, attemptsPerPin / space);
  const perDestinationDay = space === null ? null : Math.min(1, guesses / space);
  let warning: string | null = null;
  if (perDestinationDay !== null && perDestinationDay > BRUTE_FORCE_WARNING_THRESHOLD) {
    warning = `A guesser can succeed at one destination with probability up to ${perDestinationDay.toPrecision(3)} per day (above 1 in 10,000): `
      + 'lower pinAttempts, sendPinPerPhoneNumberLimit or verifyPinLimit, or use longer PINs.';
  }
  return {
    weakestTemplate: weakest ? { messageId: weakest.t.id, pinType: weakest.t.pinType, pinLength: weakest.t.pinLength } : null,
    pinSpace: space,
    attemptsPerPin,
    pinsPerDestinationPerDay: pinsPerDay,
    guessesPerDestinationPerDay: guesses,
    successProbabilityPerPin: perPin,
    successProbabilityPerDestinationPerDay: perDestinationDay,
    threshold: BRUTE_FORCE_WARNING_THRESHOLD,
    warning,
  };
}
