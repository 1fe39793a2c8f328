// SMS sender ids as networks accept them: alphanumeric up to 11 characters (GSM 03.40 TP-OA), or a
// numeric sender (a phone number or short code) up to 15 digits.
export const ALPHANUMERIC_SENDER_MAX = 11;

export function validateSmsSender(sender: string): string | null {
  if (/^\+?\d{1,15}$/.test(sender)) return null;
  if (sender.length === 0) return 'must not be empty';
  if (sender.length > ALPHANUMERIC_SENDER_MAX) return `must be at most ${ALPHANUMERIC_SENDER_MAX} characters (or a number of up to 15 digits)`;
  if (!/^[A-Za-z0-9 .,&'!?@#$%()*+\-_/:;=]+$/.test(sender)) return 'may only contain letters, digits, spaces and common punctuation';
  if (!/[A-Za-z0-9]/.test(sender)) return 'must contain a letter or digit';
  return null;
}

/**
 * What networks see a sender as: letters (`Acme`), a long code (a phone number, `+15005550006`) or a
 * short code (3 to 8 digits). Routes name the kind of each sender (docs/routing.md).
 */
export const SENDER_KINDS = ['alphanumeric', 'long_code', 'short_code'] as const;
export type SenderKind = (typeof SENDER_KINDS)[number];

export interface SenderId {
  id: string;
  kind: SenderKind;
}

/** Up to this many digits a numeric sender is a short code (as SMPP's source TON reads it). */
const SHORT_CODE_MAX_DIGITS = 8;

/** The kind a sender given without one (a request's `from`, a template's senderId) has by its shape. */
export function senderKindOf(sender: string): SenderKind {
  if (!/^\+?\d+$/.test(sender)) return 'alphanumeric';
  return sender.replace(/^\+/, '').length <= SHORT_CODE_MAX_DIGITS && !sender.startsWith('+') ? 'short_code' : 'long_code';
}

/** Why `sender` cannot be a sender of `kind`, or null when it can. */
export function validateSenderOfKind(sender: string, kind: SenderKind): string | null {
  if (kind === 'alphanumeric') {
    if (!/[A-Za-z]/.test(sender)) return 'an alphanumeric sender must contain a letter (a number is a long_code or short_code)';
    return validateSmsSender(sender);
  }
  if (kind === 'short_code') return /^\d{3,8}$/.test(sender) ? null : 'a short code is 3 to 8 digits';
  return /^\+?\d{6,15}$/.test(sender) ? null : 'a long code is a phone number of 6 to 15 digits in international form (a leading + allowed)';
}

/**
 * Countries (ISO 3166-1 alpha-2) whose networks do not deliver, or replace, alphanumeric senders, so
 * a route's fallback sender (a long or short code) goes instead. Kept from the providers' published
 * per-country sender rules, checked 2026-11: Twilio's SMS guidelines per country
 * (https://www.twilio.com/en-us/guidelines, "Alphanumeric: not supported"), Bird/MessageBird's
 * "Sender ID availability and restrictions per country" and Pushtech's "International SMS Sender ID
 * regulations" (alphanumeric "No"). A country is added when two of them agree; docs/routing.md lists
 * them with the same sources. Numbers of the North American Numbering Plan's US territories are
 * included with the US.
 */
export const ALPHANUMERIC_REJECTED_COUNTRIES: ReadonlySet<string> = new Set([
  'AR', // Argentina: replaced by a static short code
  'BR', // Brazil
  'CA', // Canada: long or short codes only
  'CL', // Chile
  'CN', // China
  'CO', // Colombia
  'CR', // Costa Rica
  'DO', // Dominican Republic
  'EC', // Ecuador
  'GU', // Guam (US)
  'MX', // Mexico
  'PE', // Peru
  'PR', // Puerto Rico (US)
  'US', // United States: toll-free, 10DLC long codes or short codes only
  'UY', // Uruguay
  'VE', // Venezuela
  'VI', // US Virgin Islands
]);

export function rejectsAlphanumericSenders(country: string | undefined): boolean {
  return country !== undefined && ALPHANUMERIC_REJECTED_COUNTRIES.has(country);
}
