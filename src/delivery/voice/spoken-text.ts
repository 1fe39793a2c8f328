// What a voice PIN says. The template's own words stay as written (`Your code is`, in whatever
// language the template author used); the PIN is read one character at a time with a pause between
// characters, so "482913" is heard as "4, 8, 2, 9, 1, 3" and not "four hundred eighty-two
// thousand...". The whole message is read `repeat` times.
//
// Two renderings come out of one template: segments (text and the PIN's characters apart), from
// which the SIP transport assembles audio with explicit pauses and per-character clips, and plain
// text with commas as the pauses, for providers that synthesise speech themselves.
import { normalizeLanguage, type Language } from '../../domain/languages.js';
import type { VoiceContent } from '../transport.js';

/** Readings of the message per call unless the DSN says otherwise (`repeat=`). */
export const DEFAULT_REPEAT = 2;
export const MAX_REPEAT = 5;
/** espeak-ng's own default pace; `speechRate` 1.0 means this. */
export const BASE_WORDS_PER_MINUTE = 175;
export const SPEECH_RATE_MIN = 0.5;
export const SPEECH_RATE_MAX = 2;

/**
 * espeak-ng voices (as `espeak-ng --voices` names them in Debian's espeak-ng 1.51) for the 22
 * template languages. Norwegian is Bokmål (`nb`); Chinese is Mandarin for both zh_cn and zh_tw,
 * Taiwan's language being Mandarin too (`yue` would be Cantonese, spoken in Hong Kong).
 */
export const ESPEAK_VOICES: Readonly<Record<Language, string>> = {
  en: 'en',
  es: 'es',
  ca: 'ca',
  da: 'da',
  nl: 'nl',
  fr: 'fr',
  de: 'de',
  it: 'it',
  ja: 'ja',
  ko: 'ko',
  no: 'nb',
  pl: 'pl',
  ru: 'ru',
  sv: 'sv',
  fi: 'fi',
  hr: 'hr',
  sl: 'sl',
  ro: 'ro',
  pt_pt: 'pt',
  pt_br: 'pt-br',
  zh_cn: 'cmn',
  zh_tw: 'cmn',
};

export type SpokenSegment =
  /** Template text (placeholders other than the PIN filled in), spoken as written. */
  | { kind: 'text'; text: string }
  /** The PIN, one entry per character, each spoken on its own. */
  | { kind: 'pin'; characters: readonly string[] };

export interface SpokenMessage {
  language: Language;
  espeakVoice: string;
  /** Clamped to 0.5..2; 1 when the template has none. */
  speechRate: number;
  wordsPerMinute: number;
  /** How many times the message is read in one call. */
  repeat: number;
  repeatDtmf: string | null;
  voiceName: string | null;
  /** One reading of the message. */
  segments: readonly SpokenSegment[];
}

// The same placeholder syntax as domain/template-rendering.ts; rendered in one pass, so a value
// that itself contains `{{pin}}` is read literally and never pulls the PIN into the message.
const PLACEHOLDER_PATTERN = /\{\{([A-Za-z0-9_.-]+)\}\}/g;

/** The espeak-ng voice for a template language (`pt_pt` and `pt-pt` alike); throws on an unknown one. */
export function espeakVoiceFor(language: string): string {
  const normalized = normalizeLanguage(language);
  if (normalized === null) throw new Error(`unknown template language "${language}"`);
  return ESPEAK_VOICES[normalized];
}

/** `speechRate` (0.5..2, null for normal) as espeak-ng words per minute. */
export function wordsPerMinute(speechRate: number | null): number {
  return Math.round(BASE_WORDS_PER_MINUTE * clampRate(speechRate));
}

function clampRate(speechRate: number | null): number {
  if (speechRate === null || !Number.isFinite(speechRate)) return 1;
  return Math.min(SPEECH_RATE_MAX, Math.max(SPEECH_RATE_MIN, speechRate));
}

/**
 * The spoken form of a voice message. Throws when the template names a placeholder without a value
 * or an unknown language (the message composer checks both before a message gets here).
 */
export function composeSpokenMessage(voice: VoiceContent, options: { repeat?: number } = {}): SpokenMessage {
  const language = normalizeLanguage(voice.language);
  if (language === null) throw new Error(`unknown template language "${voice.language}"`);
  const repeat = options.repeat ?? DEFAULT_REPEAT;
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > MAX_REPEAT) throw new Error(`repeat must be an integer from 1 to ${MAX_REPEAT}`);
  const speechRate = clampRate(voice.speechRate);

  const segments: SpokenSegment[] = [];
  let text = '';
  let last = 0;
  for (const match of voice.template.matchAll(PLACEHOLDER_PATTERN)) {
    text += voice.template.slice(last, match.index);
    last = (match.index ?? 0) + match[0].length;
    const name = match[1] as string;
    if (name === 'pin') {
      pushText(segments, text);
      text = '';
      segments.push({ kind: 'pin', characters: [...voice.pin] });
      continue;
    }
    const value = Object.hasOwn(voice.placeholders, name) ? voice.placeholders[name] : undefined;
    if (value === undefined) throw new Error(`no value for placeholder {{${name}}}`);
    text += value;
  }
  pushText(segments, text + voice.template.slice(last));

  return {
    language,
    espeakVoice: ESPEAK_VOICES[language],
    speechRate,
    wordsPerMinute: Math.round(BASE_WORDS_PER_MINUTE * speechRate),
    repeat,
    repeatDtmf: voice.repeatDtmf === '' ? null : voice.repeatDtmf,
    voiceName: voice.voiceName === '' ? null : voice.voiceName,
    segments,
  };
}

function pushText(segments: SpokenSegment[], text: string): void {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  if (collapsed !== '') segments.push({ kind: 'text', text: collapsed });
}

/**
 * One reading as plain text for a provider's speech engine: the PIN's characters separated by
 * commas (every engine pauses on a comma), the template's words unchanged.
 */
export function spokenText(message: SpokenMessage): string {
  let out = '';
  for (const segment of message.segments) {
    const piece = segment.kind === 'text' ? segment.text : segment.characters.join(', ');
    if (out === '') out = piece;
    // Punctuation right after the PIN ("{{pin}}.") attaches to it without a space.
    else out += /^[.,;:!?。、！？]/.test(piece) ? piece : ` ${piece}`;
  }
  return out;
}

/** All readings in one text, for providers that cannot loop a message themselves. */
export function repeatedSpokenText(message: SpokenMessage): string {
  const once = spokenText(message);
  const terminated = /[.!?。！？]$/.test(once) ? once : `${once}.`;
  return Array.from({ length: message.repeat }, () => terminated).join(' ');
}

/** Pause after each PIN character (before the next), in milliseconds at normal pace. */
export const PIN_CHARACTER_PAUSE_MS = 350;
/** Pause between the template text and the PIN, at normal pace. */
export const PIN_BOUNDARY_PAUSE_MS = 250;
/** Silence between two readings of the message. */
export const READING_GAP_MS = 900;
