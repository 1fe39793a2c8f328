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
