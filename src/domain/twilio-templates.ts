// Twilio Verify's built-in message template, in the locales Twilio publishes for Verify (`Locale` on a
// start; GET /v2/Templates lists it). `{{friendly_name}}` is the service's name (or the start's
// CustomFriendlyName) and `{{code}}` the code; every text ends with the code, as Twilio's do.
import { createHash } from 'node:crypto';
import { countryLanguage } from './template-locales.js';

const TRANSLATIONS: Readonly<Record<string, string>> = {
  af: 'Jou {{friendly_name}}-verifikasiekode is: {{code}}',
  ar: 'رمز التحقق الخاص بك في {{friendly_name}} هو: {{code}}',
  ca: 'El teu codi de verificació de {{friendly_name}} és: {{code}}',
  cs: 'Váš ověřovací kód pro {{friendly_name}} je: {{code}}',
  da: 'Din {{friendly_name}}-bekræftelseskode er: {{code}}',
  de: 'Ihr {{friendly_name}}-Bestätigungscode lautet: {{code}}',
  el: 'Ο κωδικός επαλήθευσης {{friendly_name}} είναι: {{code}}',
  en: 'Your {{friendly_name}} verification code is: {{code}}',
  'en-GB': 'Your {{friendly_name}} verification code is: {{code}}',
  es: 'Tu código de verificación de {{friendly_name}} es: {{code}}',
  et: 'Teie {{friendly_name}} kinnituskood on: {{code}}',
  fi: '{{friendly_name}}-vahvistuskoodisi on: {{code}}',
  fr: 'Votre code de vérification {{friendly_name}} est : {{code}}',
  he: 'קוד האימות שלך ל-{{friendly_name}} הוא: {{code}}',
  hi: 'आपका {{friendly_name}} सत्यापन कोड है: {{code}}',
  hr: 'Vaš {{friendly_name}} kontrolni kod je: {{code}}',
  hu: 'A(z) {{friendly_name}} ellenőrző kódja: {{code}}',
  id: 'Kode verifikasi {{friendly_name}} Anda adalah: {{code}}',
  it: 'Il tuo codice di verifica {{friendly_name}} è: {{code}}',
  ja: '{{friendly_name}} の認証コード: {{code}}',
  kn: 'ನಿಮ್ಮ {{friendly_name}} ಪರಿಶೀಲನಾ ಕೋಡ್: {{code}}',
  ko: '{{friendly_name}} 인증 코드: {{code}}',
  lt: 'Jūsų {{friendly_name}} patvirtinimo kodas: {{code}}',
  mr: 'तुमचा {{friendly_name}} पडताळणी कोड आहे: {{code}}',
  ms: 'Kod pengesahan {{friendly_name}} anda ialah: {{code}}',
  nb: 'Din {{friendly_name}}-bekreftelseskode er: {{code}}',
  nl: 'Je {{friendly_name}}-verificatiecode is: {{code}}',
  pl: 'Twój kod weryfikacyjny {{friendly_name}} to: {{code}}',
  pt: 'O seu código de verificação {{friendly_name}} é: {{code}}',
  'pt-BR': 'Seu código de verificação do {{friendly_name}} é: {{code}}',
  ro: 'Codul tău de verificare {{friendly_name}} este: {{code}}',
  ru: 'Ваш код подтверждения {{friendly_name}}: {{code}}',
  sk: 'Váš overovací kód pre {{friendly_name}} je: {{code}}',
  sv: 'Din verifieringskod för {{friendly_name}} är: {{code}}',
  te: 'మీ {{friendly_name}} ధృవీకరణ కోడ్: {{code}}',
  th: 'รหัสยืนยัน {{friendly_name}} ของคุณคือ: {{code}}',
  tl: 'Ang iyong {{friendly_name}} verification code ay: {{code}}',
  tr: '{{friendly_name}} doğrulama kodunuz: {{code}}',
  vi: 'Mã xác minh {{friendly_name}} của bạn là: {{code}}',
  zh: '您的 {{friendly_name}} 验证码是：{{code}}',
  'zh-CN': '您的 {{friendly_name}} 验证码是：{{code}}',
  'zh-HK': '您的 {{friendly_name}} 驗證碼是：{{code}}',
};

export const DEFAULT_LOCALE = 'en';
export const TWILIO_LOCALES: readonly string[] = Object.keys(TRANSLATIONS).sort();

export interface BuiltInTemplate {
  sid: string;
  friendlyName: string;
  channels: readonly string[];
  translations: Readonly<Record<string, string>>;
  /** When its texts were written (all translations share it). */
  createdAt: number;
  /** The locale of its default translation: English unless said. */
  defaultLocale?: string;
}

export const BASE_TEMPLATE: BuiltInTemplate = {
  sid: `HJ${createHash('sha256').update('twofa-template:base', 'utf8').digest('hex').slice(0, 32)}`,
  friendlyName: 'Base Verification Template',
  channels: ['sms', 'voice'],
  translations: TRANSLATIONS,
  createdAt: Date.UTC(2026, 0, 1),
};

export const BUILT_IN_TEMPLATES: readonly BuiltInTemplate[] = [BASE_TEMPLATE];

/** `Locale` as Twilio spells it (`pt-BR`, `zh-HK`), matched without regard to case; undefined when unsupported. */
export function twilioLocale(input: string): string | undefined {
  return TWILIO_LOCALES.find((l) => l.toLowerCase() === input.toLowerCase());
}

/** The engine's message text of a locale: Twilio's `{{code}}` is the engine's `{{pin}}`. */
export function localeMessageText(locale: string): string {
  return `${(TRANSLATIONS[locale] ?? TRANSLATIONS[DEFAULT_LOCALE]!).replace('{{code}}', '{{pin}}')}.`;
}

/**
 * The locale Twilio picks from the number's country when a start gives no `Locale`: the country's
 * main language where the built-in templates have it. Countries of several languages (CH, BE, CA,
 * IN, ...) and those whose language is not among the locales get English, Twilio's fallback.
 */
export function countryLocale(country: string | undefined): string {
  const language = countryLanguage(country);
  return (language !== undefined ? twilioLocale(language) : undefined) ?? DEFAULT_LOCALE;
}
