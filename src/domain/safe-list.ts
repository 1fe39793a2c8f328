// An account's Safe List (docs/security.md, "Safe List"): numbers and number prefixes that the
// destination guards let through and the risk score never blocks (nor counts in the baselines it
// compares sends against). Both kinds are rows of one table, keyed by their digits; a prefix's key
// ends with PREFIX_MARK, which no number has, so Twilio's exact-number routes never see a prefix.

export const PREFIX_MARK = '*';

/** The account's list as the send path consults it (loaded once per configuration change). */
export interface SafeList {
  numbers: ReadonlySet<string>;
  /** Digits of each listed prefix, without its mark. */
  prefixes: readonly string[];
}

/** A prefix as the API takes it: E.164's leading +, then 1 to 14 digits, the first not 0. */
const PREFIX = /^\+([1-9][0-9]{0,13})$/;

/** The digits of a prefix written `+4179` (its trailing `*` allowed), or undefined if it is not one. */
export function parseSafeListPrefix(text: string): string | undefined {
  return PREFIX.exec(text.endsWith(PREFIX_MARK) ? text.slice(0, -PREFIX_MARK.length) : text)?.[1];
}

export function prefixKey(digits: string): string {
  return `${digits}${PREFIX_MARK}`;
}

/** The stored keys of an account's entries, as the send path consults them. */
export function safeListOfKeys(keys: readonly string[]): SafeList {
  const numbers = new Set<string>();
  const prefixes: string[] = [];
  for (const key of keys) {
    if (key.endsWith(PREFIX_MARK)) prefixes.push(key.slice(0, -PREFIX_MARK.length));
    else numbers.add(key);
  }
  return { numbers, prefixes };
}

/** Whether `digits` (a number, international digits without +) or one of its prefixes is listed. */
export function isOnSafeList(list: SafeList, digits: string): boolean {
  return list.numbers.has(digits) || list.prefixes.some((p) => digits.startsWith(p));
}
