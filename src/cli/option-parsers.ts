// Parsers for option values. A bad value is bad usage (exit 2), found before anything is sent; the
// rules are the domain's own, so the CLI and the server never disagree about what is valid.
import { InvalidArgumentError } from 'commander';
import { ONE_DAY_MS, ONE_YEAR_MS, validateLimit, validateTimeToLive } from '../domain/durations.js';
import { LANGUAGES, normalizeLanguage } from '../domain/languages.js';
import { PIN_LENGTH_MAX, PIN_LENGTH_MIN, PIN_TYPES } from '../domain/pin-generation.js';

export { CHANNELS } from '../store/store.js';
export type { Channel as CliChannel } from '../store/store.js';

export function integerBetween(min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`must be from ${min} to ${max}`);
    return n;
  };
}

export const parsePinLength = integerBetween(PIN_LENGTH_MIN, PIN_LENGTH_MAX);

export function parseTimeToLive(value: string): string {
  const error = validateTimeToLive(value);
  if (error !== null) throw new InvalidArgumentError(error);
  return value;
}

function limitParser(maxWindowMs: number): (value: string) => string {
  return (value) => {
    const error = validateLimit(value, maxWindowMs);
    if (error !== null) throw new InvalidArgumentError(error);
    return value;
  };
}

/** verifyPinLimit: the window is at most one day. */
export const parseVerifyLimit = limitParser(ONE_DAY_MS);
/** sendPinPerApplicationLimit and sendPinPerPhoneNumberLimit: the window is at most one year. */
export const parseSendLimit = limitParser(ONE_YEAR_MS);

export function parsePinType(value: string): string {
  const upper = value.toUpperCase();
  if (!(PIN_TYPES as readonly string[]).includes(upper)) throw new InvalidArgumentError(`must be one of ${PIN_TYPES.join(', ')}`);
  return upper;
}

export function parseEmailTemplateId(value: string): number {
  if (!/^[1-9]\d{0,14}$/.test(value)) throw new InvalidArgumentError('must be the numeric id of an email template (see twofa email-templates list)');
  return Number(value);
}

/** Repeatable `--placeholder name=value`: collects into one record. */
export function collectPlaceholder(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('must be name=value, e.g. --placeholder firstName=Jane');
  const name = value.slice(0, at).trim();
  if (name === '' || /[{}]/.test(name)) throw new InvalidArgumentError('the name must be non-empty and without braces, e.g. firstName=Jane');
  if (name === 'pin') throw new InvalidArgumentError('{{pin}} is filled by the server; it cannot be a placeholder');
  return { ...previous, [name]: value.slice(at + 1) };
}

export function parseSpeechRate(value: string): number {
  const rate = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || rate < 0.5 || rate > 2) throw new InvalidArgumentError('must be a number from 0.5 to 2');
  return rate;
}

export function parseLanguage(value: string): string {
  const normalized = normalizeLanguage(value);
  if (normalized === null) throw new InvalidArgumentError(`must be one of ${LANGUAGES.join(', ')}`);
  return normalized;
}
