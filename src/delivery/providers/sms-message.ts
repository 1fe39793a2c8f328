// What every HTTP SMS provider checks before it calls out: the message is an SMS with a text and
// a sender. Each refusal is permanent: sending the same message again cannot change it.
import type { DeliveryResult, OutgoingMessage } from '../transport.js';

export type SmsCheck =
  | { ok: true; to: string; text: string; from: string | undefined }
  | { ok: false; result: DeliveryResult };

export function checkSmsMessage(provider: string, message: OutgoingMessage, defaultFrom: string | undefined): SmsCheck {
  if (message.channel === 'voice') {
    // Voice through these providers is planned; until then the channel needs another transport.
    return refuse('voice not supported by this transport yet');
  }
  // A WhatsApp or Telegram PIN reaches an SMS provider as the fallback of a failover route: it goes
  // as the SMS its template renders.
  if (message.channel === 'email') return refuse(`the ${provider} transport sends SMS only, not ${message.channel}`);
  if (message.text === undefined || message.text === '') return refuse('the SMS has no text');
  // International digits, as the API stores them; a leading + is tolerated.
  const to = message.to.startsWith('+') ? message.to.slice(1) : message.to;
  if (!/^\d{6,15}$/.test(to)) return refuse('the destination is not an international phone number');
  const from = message.from !== undefined && message.from !== '' ? message.from : defaultFrom;
  return { ok: true, to, text: message.text, from };
}

function refuse(error: string): SmsCheck {
  return { ok: false, result: { ok: false, retryable: false, error } };
}
