// Template languages as Infobip's current API spells them. Older SDKs send the hyphenated forms
// (`pt-pt`), and strict SDKs reject any value outside their own enum, so input takes both spellings and
// output is always the underscore form.
export const LANGUAGES = [
  'en',
  'es',
  'ca',
  'da',
  'nl',
  'fr',
  'de',
  'it',
  'ja',
  'ko',
  'no',
  'pl',
  'ru',
  'sv',
  'fi',
  'hr',
  'sl',
  'ro',
  'pt_pt',
  'pt_br',
  'zh_cn',
  'zh_tw',
] as const;

export type Language = (typeof LANGUAGES)[number];

const KNOWN: ReadonlySet<string> = new Set(LANGUAGES);

/** `pt-pt`, `pt_pt` and `PT-PT` all become `pt_pt`; anything unknown is null. */
export function normalizeLanguage(input: string): Language | null {
  if (typeof input !== 'string') return null;
  const candidate = input.toLowerCase().replace('-', '_');
  return KNOWN.has(candidate) ? (candidate as Language) : null;
}

// The schema enum lists the spellings SDKs actually send (lower case, either separator); upper-case
// input is a convenience of normalizeLanguage for hand-written requests, not part of the contract.
export const LANGUAGE_INPUTS: string[] = LANGUAGES.flatMap((language) =>
  language.includes('_') ? [language, language.replace('_', '-')] : [language],
);
