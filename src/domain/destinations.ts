// The max metadata is chosen over min because phoneCountry feeds anti-fraud: inside shared calling
// codes (+1, +44, +7) only the full number-range data tells e.g. Jamaica from the US or Guernsey from
// the UK. isPossible() gives the same answers with either set.
import { parsePhoneNumber, parsePhoneNumberFromString, type PhoneNumber } from 'libphonenumber-js/max';

export type DestinationResult = { ok: true; value: string } | { ok: false; error: string };

const PHONE_FORMAT_ERROR =
  'must be an international phone number: digits with country code, without +, e.g. 41793026727';

// E.164 caps a number at 15 digits; nothing shorter than 6 (country code included) is a subscriber.
const PHONE_DIGITS_MIN = 6;
const PHONE_DIGITS_MAX = 15;

/**
 * Infobip clients send phone numbers as international digits without `+` ("41793026727"); a single
 * leading `+` is tolerated. Formatting characters are refused rather than stripped so that what is
 * stored, rate-limited and shown back as `msisdn` is exactly one canonical spelling per number.
 */
export function normalizePhoneNumber(input: string): DestinationResult {
  if (typeof input !== 'string') return { ok: false, error: PHONE_FORMAT_ERROR };
  const digits = input.startsWith('+') ? input.slice(1) : input;
  if (!/^[0-9]+$/.test(digits)) return { ok: false, error: PHONE_FORMAT_ERROR };
  if (digits.startsWith('0')) {
    return {
      ok: false,
      error: `${PHONE_FORMAT_ERROR} (start with the country code, not with 0 or 00)`,
    };
  }
  if (digits.length < PHONE_DIGITS_MIN || digits.length > PHONE_DIGITS_MAX) {
    return {
      ok: false,
      error: `${PHONE_FORMAT_ERROR} (${PHONE_DIGITS_MIN} to ${PHONE_DIGITS_MAX} digits)`,
    };
  }
  if (!parsedPhone(digits)?.isPossible()) {
    return {
      ok: false,
      error: `${PHONE_FORMAT_ERROR} (the number has the wrong length for its country code or the country code does not exist)`,
    };
  }
  return { ok: true, value: digits };
}

/** ISO 3166-1 alpha-2 country of an international number, or undefined when it cannot be told. */
export function phoneCountry(digits: string): string | undefined {
  if (typeof digits !== 'string') return undefined;
  const bare = digits.startsWith('+') ? digits.slice(1) : digits;
  if (!/^[0-9]+$/.test(bare)) return undefined;
  return (recentlyParsed.get(bare) ?? parsePhoneNumberFromString(`+${bare}`))?.country ?? undefined;
}

// A send validates its number, then asks its country (and the anti-fraud guards its type): the
// numbers parsed last are kept, so that a request parses its number once. Parsing is pure.
const RECENTLY_PARSED_MAX = 1024;
const recentlyParsed = new Map<string, PhoneNumber | undefined>();

/** The number as libphonenumber reads `+<digits>` (as isPossiblePhoneNumber does: nothing extracted from text around it). */
export function parsedPhone(digits: string): PhoneNumber | undefined {
  if (recentlyParsed.has(digits)) return recentlyParsed.get(digits);
  let parsed: PhoneNumber | undefined;
  try {
    parsed = parsePhoneNumber(`+${digits}`, { extract: false });
  } catch {
    parsed = undefined;
  }
  if (recentlyParsed.size >= RECENTLY_PARSED_MAX) recentlyParsed.clear();
  recentlyParsed.set(digits, parsed);
  return parsed;
}

const EMAIL_FORMAT_ERROR = 'must be an email address, e.g. john.smith@example.com';
const EMAIL_MAX_LENGTH = 254; // RFC 5321 path limit minus the angle brackets
const LOCAL_PART_MAX_LENGTH = 64;
// Control characters (CR/LF above all: header injection), whitespace and the characters that
// separate or quote addresses in a header are never part of a deliverable address here.
const EMAIL_FORBIDDEN = /[\u0000-\u001F\u007F\s<>,;"]/;
// The WHATWG "valid e-mail address" local part: what browsers accept in <input type=email>.
const LOCAL_PART_PATTERN = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+$/;
const DOMAIN_LABEL_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const TOP_LEVEL_PATTERN = /^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;

function emailError(detail?: string): DestinationResult {
  return { ok: false, error: detail === undefined ? EMAIL_FORMAT_ERROR : `${EMAIL_FORMAT_ERROR} (${detail})` };
}

/**
 * Accepts a bare address only. The domain is lower-cased because it is case-insensitive and one
 * spelling keeps per-destination limits honest; the local part is kept as given because its case
 * may matter to the receiving server.
 */
export function normalizeEmailAddress(input: string): DestinationResult {
  if (typeof input !== 'string' || input.length === 0) return emailError();
  if (EMAIL_FORBIDDEN.test(input)) {
    return emailError('no spaces, control characters or any of < > , ; ")');
  }
  if (input.length > EMAIL_MAX_LENGTH) return emailError(`at most ${EMAIL_MAX_LENGTH} characters`);
  const parts = input.split('@');
  if (parts.length !== 2) return emailError('exactly one @');
  const [local, domain] = parts as [string, string];
  if (local.length === 0 || local.length > LOCAL_PART_MAX_LENGTH) {
    return emailError(`the part before @ must have 1 to ${LOCAL_PART_MAX_LENGTH} characters`);
  }
  if (!LOCAL_PART_PATTERN.test(local)) {
    return emailError('the part before @ has a character that is not allowed');
  }
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL_PATTERN.test(label))) {
    return emailError(
      'the domain must be dot-separated labels of 1 to 63 letters, digits or hyphens; international domains in xn-- form',
    );
  }
  if (!TOP_LEVEL_PATTERN.test(labels[labels.length - 1] as string)) {
    return emailError('the top-level domain must be letters or an xn-- name');
  }
  return { ok: true, value: `${local}@${domain.toLowerCase()}` };
}

/**
 * The spelling of an email address that limits and counters use: lower-cased, with a `+tag` cut from
 * the local part. Most mail servers deliver `Victim@x.com`, `victim@X.COM` and `victim+1@x.com` to one
 * mailbox, so one budget must cover them all. Only keys use it: delivery keeps the address as given.
 */
export function canonicalEmailAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at === -1) return address.toLowerCase();
  const local = address.slice(0, at);
  const plus = local.indexOf('+');
  return `${(plus === -1 ? local : local.slice(0, plus)).toLowerCase()}@${address.slice(at + 1).toLowerCase()}`;
}

/** A normalised destination (digits or an email address) as rate-limit keys spell it. */
export function limitKeyDestination(destination: string): string {
  return destination.includes('@') ? canonicalEmailAddress(destination) : destination;
}

const DISPLAY_NAME_MAX_LENGTH = 100;
const SENDER_FORMAT_ERROR =
  'must be an email address with an optional sender name, e.g. company@example.com or Jane Smith <jane.smith@somecompany.com>';

export type EmailSenderResult =
  | { ok: true; name: string | undefined; address: string }
  | { ok: false; error: string };

/**
 * Splits a template's `from` ("company@example.com" or "Jane Smith <jane.smith@somecompany.com>")
 * into name and normalised address, so a transport can build the header from parts instead of
 * passing user text through.
 */
export function parseEmailSender(input: string): EmailSenderResult {
  if (typeof input !== 'string' || input.length === 0) return { ok: false, error: SENDER_FORMAT_ERROR };
  if (/[\u0000-\u001F\u007F]/.test(input)) {
    return { ok: false, error: `${SENDER_FORMAT_ERROR} (no control characters or line breaks)` };
  }
  if (input !== input.trim()) {
    return { ok: false, error: `${SENDER_FORMAT_ERROR} (no leading or trailing spaces)` };
  }

  const open = input.indexOf('<');
  if (open === -1) {
    const address = normalizeEmailAddress(input);
    return address.ok
      ? { ok: true, name: undefined, address: address.value }
      : { ok: false, error: `${SENDER_FORMAT_ERROR}: address ${address.error}` };
  }
  if (!input.endsWith('>') || input.indexOf('>') !== input.length - 1) {
    return { ok: false, error: `${SENDER_FORMAT_ERROR} (the address goes in <> at the end)` };
  }
  const address = normalizeEmailAddress(input.slice(open + 1, -1));
  if (!address.ok) return { ok: false, error: `${SENDER_FORMAT_ERROR}: address ${address.error}` };

  const rawName = input.slice(0, open).trimEnd();
  if (rawName.length === 0) return { ok: true, name: undefined, address: address.value };
  const nameError = displayNameError(rawName);
  if (nameError !== null) return { ok: false, error: `${SENDER_FORMAT_ERROR} (${nameError})` };
  const name = rawName.startsWith('"') ? rawName.slice(1, -1) : rawName;
  return { ok: true, name, address: address.value };
}

function displayNameError(rawName: string): string | null {
  if (rawName.length > DISPLAY_NAME_MAX_LENGTH) {
    return `the sender name must be at most ${DISPLAY_NAME_MAX_LENGTH} characters`;
  }
  if (rawName.startsWith('"')) {
    const inner = rawName.slice(1, -1);
    if (rawName.length < 2 || !rawName.endsWith('"') || /["\\]/.test(inner)) {
      return 'a quoted sender name must be wrapped in one pair of double quotes, with no quote or backslash inside';
    }
    return null;
  }
  // Unquoted, these characters make a header parser read several addresses or a group
  // ("Smith, Jane <...>"), so such names have to be quoted.
  if (/["\\,;:@<>]/.test(rawName)) {
    return 'a sender name containing " \\ , ; : @ < or > must be written in double quotes (no " or \\ inside)';
  }
  return null;
}

export function validateEmailSender(input: string): string | null {
  const result = parseEmailSender(input);
  return result.ok ? null : result.error;
}

/**
 * Masks a destination for logs. At least half of the characters (and at least one) are hidden, so
 * even very short values are never shown whole.
 */
export function maskDestination(value: string): string {
  const at = value.lastIndexOf('@');
  if (at !== -1) {
    const local = value.slice(0, at);
    const keep = local.length > 1 ? 1 : 0;
    return `${local.slice(0, keep)}${'*'.repeat(local.length - keep)}${value.slice(at)}`;
  }
  const chars = [...value];
  const n = chars.length;
  if (n === 0) return '';
  const hidden = Math.max(n - 6, Math.floor(n / 2), 1);
  const visible = n - hidden;
  const head = Math.min(4, Math.ceil((visible * 2) / 3));
  const tail = visible - head;
  return `${chars.slice(0, head).join('')}${'*'.repeat(hidden)}${chars.slice(n - tail).join('')}`;
}
