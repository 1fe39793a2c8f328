// What a provider says about a refused message (an SMTP reply, an API error body) ends up in the
// outbox row, the PIN's delivery history and the logs. Providers like to quote the request back
// ("Invalid 'To' Phone Number: +4179...", "550 <john@example.com>: no such user"), so their words
// are cleaned before we keep them: no PIN, no message text, no full destination.
import { maskDestination } from '../../domain/destinations.js';
import type { OutgoingMessage } from '../transport.js';

/** Longest provider text we keep; enough for a reason, too short for a quoted message. */
export const PROVIDER_TEXT_MAX = 200;

const EMAIL_PATTERN = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
// Four digits or more (a PIN, a phone number), with the separators numbers are written with.
const DIGIT_RUN_PATTERN = /\+?\d(?:[\d ().-]*\d){3,}/g;

/**
 * The provider's text with every word that also occurs in the message (any PIN whatever its
 * alphabet, the template's words), every run of four or more digits and every email address
 * hidden, on one line and at most PROVIDER_TEXT_MAX characters.
 */
export function redactProviderText(text: string, message: Pick<OutgoingMessage, 'to' | 'text' | 'subject'>): string {
  let out = text.replace(/[\u0000-\u001F\u007F]+/g, ' ');
  const echoed = new Set<string>();
  for (const source of [message.text, message.subject]) {
    if (source === undefined) continue;
    for (const word of source.split(/[^\p{L}\p{N}]+/u)) {
      if (word.length >= 3) echoed.add(word);
    }
  }
  if (echoed.size > 0) {
    // Longest first, so a word that contains a shorter one is hidden whole.
    const alternatives = [...echoed].sort((a, b) => b.length - a.length).map(escapeRegExp);
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'gu'), '***');
  }
  out = out.replace(EMAIL_PATTERN, (address) => maskDestination(address));
  out = out.replace(DIGIT_RUN_PATTERN, '***');
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > PROVIDER_TEXT_MAX ? `${out.slice(0, PROVIDER_TEXT_MAX - 1)}…` : out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
