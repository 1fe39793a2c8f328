// What the HTTP voice providers (Twilio, Vonage, Infobip) share before they call out: the message
// is a voice message with something to speak and a phone number to call, rendered as text with the
// PIN spaced out (the provider's own engine speaks it), and the template's language as the provider
// spells it. Every refusal is permanent: sending the same message again cannot change it.
import type { Language } from '../../domain/languages.js';
import { redactProviderText } from '../providers/redact-provider-text.js';
import type { DeliveryResult, OutgoingMessage } from '../transport.js';
import { composeSpokenMessage, DEFAULT_REPEAT, MAX_REPEAT, type SpokenMessage } from './spoken-text.js';

export type VoiceCheck =
  | { ok: true; to: string; spoken: SpokenMessage; from: string | undefined }
  | { ok: false; result: DeliveryResult };

export function checkVoiceMessage(message: OutgoingMessage, defaultFrom: string | undefined, repeat: number = DEFAULT_REPEAT): VoiceCheck {
  if (message.voice === undefined) return refuse('the voice message carries no voice content');
  const to = message.to.startsWith('+') ? message.to.slice(1) : message.to;
  if (!/^\d{6,15}$/.test(to)) return refuse('the destination is not an international phone number');
  let spoken: SpokenMessage;
  try {
    spoken = composeSpokenMessage(message.voice, { repeat });
  } catch (err) {
    return refuse(`the voice message cannot be spoken: ${(err as Error).message}`);
  }
  // A call needs a number to call from; an alphanumeric SMS sender id is no use here.
  const candidates = [message.from, defaultFrom].filter((from): from is string => from !== undefined && from !== '');
  const from = candidates.find((candidate) => /^\+?\d{3,15}$/.test(candidate));
  return { ok: true, to, spoken, from };
}

function refuse(error: string): VoiceCheck {
  return { ok: false, result: { ok: false, retryable: false, error } };
}

/** `repeat=` of a provider DSN: how many times the message is read in one call. */
export function readRepeat(variable: string, value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_REPEAT;
  const repeat = Number(value);
  if (!/^\d+$/.test(value) || repeat < 1 || repeat > MAX_REPEAT) throw new Error(`${variable}: DSN parameter repeat must be a whole number from 1 to ${MAX_REPEAT}`);
  return repeat;
}

/**
 * BCP 47 tags for the template languages as Twilio's <Say> spells them (Taiwanese Mandarin is
 * zh-TW there) and as Vonage's talk action does (cmn-CN / cmn-TW). Vonage lists no Croatian or
 * Slovenian voice; the tag is sent anyway and Vonage's refusal is reported.
 */
const LOCALES: Readonly<Record<Language, string>> = {
  en: 'en-US',
  es: 'es-ES',
  ca: 'ca-ES',
  da: 'da-DK',
  nl: 'nl-NL',
  fr: 'fr-FR',
  de: 'de-DE',
  it: 'it-IT',
  ja: 'ja-JP',
  ko: 'ko-KR',
  no: 'nb-NO',
  pl: 'pl-PL',
  ru: 'ru-RU',
  sv: 'sv-SE',
  fi: 'fi-FI',
  hr: 'hr-HR',
  sl: 'sl-SI',
  ro: 'ro-RO',
  pt_pt: 'pt-PT',
  pt_br: 'pt-BR',
  zh_cn: 'zh-CN',
  zh_tw: 'zh-TW',
};

export function twilioLanguage(language: Language): string {
  return LOCALES[language];
}

export function vonageLanguage(language: Language): string {
  if (language === 'zh_cn') return 'cmn-CN';
  if (language === 'zh_tw') return 'cmn-TW';
  return LOCALES[language];
}

/** Infobip's voice API spells the regional languages with a hyphen in lower case (`pt-pt`, `zh-tw`). */
export function infobipLanguage(language: Language): string {
  return language.replace('_', '-');
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text or attribute value safe inside XML (TwiML, SSML). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => XML_ESCAPES[ch] as string).replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');
}

/** SSML `<prosody rate>` for a speech rate other than 1 (`150%`), or null. */
export function prosodyRate(spoken: SpokenMessage): string | null {
  return spoken.speechRate === 1 ? null : `${Math.round(spoken.speechRate * 100)}%`;
}

/**
 * A provider's error text about a voice message, cleaned like an SMS provider's (see
 * redact-provider-text.ts) and also without the PIN in the spaced-out form we sent ("4, 8, 2, 9"),
 * which the digit-run rule there does not catch.
 */
export function redactVoiceText(text: string, message: OutgoingMessage): string {
  const redacted = redactProviderText(text, message);
  const pin = message.voice?.pin;
  if (pin === undefined || pin === '') return redacted;
  const spaced = new RegExp([...pin].map((ch) => ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^\\p{L}\\p{N}]*'), 'giu');
  return redacted.replace(spaced, '***');
}
