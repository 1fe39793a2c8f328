// A message template's texts per locale (and per channel where a dialect needs one), and the one rule
// that picks the text a message is sent with. Every dialect names the locale its own way (Vonage's
// `locale`, Prelude's `options.locale`, Twilio's `Locale`, our own API's `locale`); the engine keeps
// it on the message's request and the message composer asks chooseLocaleText at delivery time, so the
// choice is the same whichever dialect sent the PIN.
import { normalizeLanguage, type Language } from './languages.js';

/** The channels a locale text can be limited to; null: every phone channel. */
export const LOCALE_TEXT_CHANNELS = ['sms', 'voice'] as const;
export type LocaleTextChannel = typeof LOCALE_TEXT_CHANNELS[number];

export interface LocaleText {
  id: string;
  /** null: the text of every channel of the locale that has no text of its own. */
  channel: LocaleTextChannel | null;
  /** A BCP-47 tag as it was given (`en-us`, `pt-BR`, `el`); matched without regard to case or `-`/`_`. */
  locale: string;
  /** The engine's placeholders: `{{pin}}` for the code, `{{friendly_name}}` for the brand or service name. */
  text: string;
  createdAt: number;
  updatedAt: number;
}

/** Locale texts one template holds at most: every locale a dialect publishes, twice over. */
export const LOCALE_TEXTS_MAX = 100;

/** A BCP-47 tag's shape (`el`, `en-us`, `zh-Hant-HK`); `_` is taken for `-` (Vonage's fixtures write `en_US`). */
const LOCALE_TAG = /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/;
export const LOCALE_TAG_MAX = 35;

export function isLocaleTag(input: string): boolean {
  return input.length <= LOCALE_TAG_MAX && LOCALE_TAG.test(input);
}

/** `en_US`, `EN-us` and `en-us` are one locale. */
export function canonicalLocale(tag: string): string {
  return tag.toLowerCase().replaceAll('_', '-');
}

function languageOf(tag: string): string {
  return canonicalLocale(tag).split('-')[0]!;
}

/**
 * The language most people of a country read, as a locale tag; undefined for countries of several
 * languages (CH, BE, CA, IN, ...) and those this table does not know: their messages fall back to the
 * template's default text.
 */
const COUNTRY_LANGUAGES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(['AR', 'BO', 'CL', 'CO', 'CR', 'CU', 'DO', 'EC', 'ES', 'GT', 'HN', 'MX', 'NI', 'PA', 'PE', 'PY', 'SV', 'UY', 'VE'].map((c) => [c, 'es'])),
  ...Object.fromEntries(['AE', 'BH', 'DZ', 'EG', 'IQ', 'JO', 'KW', 'LB', 'LY', 'MA', 'OM', 'QA', 'SA', 'SY', 'TN', 'YE'].map((c) => [c, 'ar'])),
  ...Object.fromEntries(['BY', 'KG', 'KZ', 'RU'].map((c) => [c, 'ru'])),
  ...Object.fromEntries(['AT', 'DE', 'LI'].map((c) => [c, 'de'])),
  ...Object.fromEntries(['FR', 'MC'].map((c) => [c, 'fr'])),
  ...Object.fromEntries(['GR', 'CY'].map((c) => [c, 'el'])),
  ...Object.fromEntries(['RO', 'MD'].map((c) => [c, 'ro'])),
  ...Object.fromEntries(['IT', 'SM'].map((c) => [c, 'it'])),
  ...Object.fromEntries(['US', 'AU', 'NZ', 'IE'].map((c) => [c, 'en'])),
  BR: 'pt-BR', CN: 'zh-CN', CZ: 'cs', DK: 'da', EE: 'et', FI: 'fi', GB: 'en-GB', HK: 'zh-HK', HR: 'hr', HU: 'hu', ID: 'id', IL: 'he', JP: 'ja',
  KR: 'ko', LT: 'lt', MY: 'ms', NL: 'nl', NO: 'nb', PL: 'pl', PT: 'pt', SE: 'sv', SK: 'sk', TH: 'th', TR: 'tr', TW: 'zh', VN: 'vi',
};

/** The language of a number's country (ISO 3166-1 alpha-2), as a locale tag; undefined when it has none of its own. */
export function countryLanguage(country: string | undefined): string | undefined {
  return country === undefined ? undefined : COUNTRY_LANGUAGES[country];
}

export interface LocaleChoice {
  /** The channel the message goes out on: a text of another channel is never picked. */
  channel: string;
  /** The locale the send asked for (a dialect's field), if any. */
  requested?: string | undefined;
  /** The destination's country (phoneCountry), if it is a phone number. */
  country?: string | undefined;
}

/**
 * The text a message is sent with, or undefined for the template's default text. The chain: the
 * requested locale, then the language of the number's country. For each, the exact tag first (`es-mx`),
 * then the bare language (`es`), then any tag of the language (`es-es`, the first in tag order); at each
 * of those a text of the message's channel before one of every channel.
 */
export function chooseLocaleText(texts: readonly LocaleText[], choice: LocaleChoice): LocaleText | undefined {
  const usable = texts
    .filter((t) => t.channel === null || t.channel === choice.channel)
    .sort((a, b) => canonicalLocale(a.locale).localeCompare(canonicalLocale(b.locale)) || Number(a.channel === null) - Number(b.channel === null));
  for (const wanted of [choice.requested, countryLanguage(choice.country)]) {
    if (wanted === undefined || !isLocaleTag(wanted)) continue;
    const tag = canonicalLocale(wanted);
    const language = languageOf(wanted);
    const tiers: Array<(t: LocaleText) => boolean> = [
      (t) => canonicalLocale(t.locale) === tag,
      (t) => canonicalLocale(t.locale) === language,
      (t) => languageOf(t.locale) === language,
    ];
    for (const matches of tiers) {
      const found = usable.filter(matches);
      // Sorted: within one locale a text of the channel comes before one of every channel.
      if (found.length > 0) return found.find((t) => t.channel === choice.channel) ?? found[0];
    }
  }
  return undefined;
}

const VOICE_LANGUAGE_OF: Readonly<Record<string, string>> = {
  nb: 'no', pt: 'pt_pt', 'pt-br': 'pt_br', zh: 'zh_cn', 'zh-cn': 'zh_cn', 'zh-hk': 'zh_tw', 'zh-tw': 'zh_tw',
};

/** The voice (TTS) language of a locale, among the engine's template languages; English when it has none. */
export function voiceLanguageOf(locale: string): Language {
  const tag = canonicalLocale(locale);
  const language = languageOf(locale);
  return normalizeLanguage(VOICE_LANGUAGE_OF[tag] ?? tag) ?? normalizeLanguage(VOICE_LANGUAGE_OF[language] ?? language) ?? 'en';
}
