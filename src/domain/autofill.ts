// Lines that let a phone fill the code in by itself, appended to an SMS template's text:
// - the origin-bound line of the WICG sms-one-time-codes format (WebOTP in browsers, iOS security-code
//   autofill): the message's last line is `@<domain> #<code>`, one space between, nothing after;
// - an Android SMS Retriever app hash (11 characters), on its own line; SMS Retriever reads only a
//   message of at most 140 bytes, i.e. one SMS part, which is checked whenever it is set.
// The code appears as {{pin}}, so the text with these lines renders, measures and delivers like any
// template text. Voice never reads them.

export interface Autofill {
  /** Host of the origin the code is bound to (`example.com`). */
  webOtpDomain: string | null;
  /** The app's 11-character SMS Retriever hash. */
  androidAppHash: string | null;
}

/** A DNS host name of letters, digits and hyphens (IDNs in their xn-- form), at least two labels. */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Base64 characters, as Google's hash helper prints them. */
const APP_HASH = /^[A-Za-z0-9+/]{11}$/;

/** Field errors of an autofill setting, by field name. */
export function autofillErrors(input: Autofill): Record<string, string> {
  const errors: Record<string, string> = {};
  if (input.webOtpDomain !== null && !DOMAIN.test(input.webOtpDomain)) {
    errors['webOtpDomain'] = 'must be a lower-case host name such as example.com (no scheme, port or path)';
  }
  if (input.androidAppHash !== null && !APP_HASH.test(input.androidAppHash)) {
    errors['androidAppHash'] = 'must be the 11-character SMS Retriever app hash (letters, digits, + and /)';
  }
  return errors;
}

/** The SMS template text with the autofill lines: the app hash, then the origin-bound line last. */
export function withAutofill(messageText: string, autofill: Autofill | null | undefined): string {
  if (!autofill || (autofill.webOtpDomain === null && autofill.androidAppHash === null)) return messageText;
  const lines = [messageText.replace(/\s+$/, ''), ''];
  if (autofill.androidAppHash !== null) lines.push(autofill.androidAppHash);
  if (autofill.webOtpDomain !== null) lines.push(`@${autofill.webOtpDomain} #{{pin}}`);
  return lines.join('\n');
}
