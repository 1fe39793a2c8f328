// The one rule that picks a template's text for a message, whichever dialect sent it: the requested
// locale, then the language of the number's country, then the template's default (undefined here).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalLocale, chooseLocaleText, countryLanguage, isLocaleTag, voiceLanguageOf, type LocaleText } from '../../src/domain/template-locales.js';

let next = 0;
function text(locale: string, channel: LocaleText['channel'] = null): LocaleText {
  next += 1;
  return { id: `T${next}`, channel, locale, text: `${locale}/${channel ?? 'any'} {{pin}}`, createdAt: 0, updatedAt: 0 };
}

const pick = (texts: LocaleText[], requested: string | undefined, country?: string, channel = 'sms') =>
  chooseLocaleText(texts, { channel, requested, country })?.text.replace(' {{pin}}', '');

describe('chooseLocaleText', () => {
  const texts = [text('en-us'), text('es-es'), text('es'), text('de-DE'), text('fr', 'voice'), text('fr', 'sms'), text('pt-BR')];

  it('takes the requested locale exactly, whatever its case or separator', () => {
    assert.equal(pick(texts, 'es-ES'), 'es-es/any');
    assert.equal(pick(texts, 'de_de'), 'de-DE/any');
    assert.equal(pick(texts, 'PT-br'), 'pt-BR/any');
  });

  it('takes the bare language, then any region of it, when the exact tag has no text', () => {
    assert.equal(pick(texts, 'es-MX'), 'es/any', 'es before es-es');
    assert.equal(pick(texts, 'de'), 'de-DE/any');
    assert.equal(pick(texts, 'en-gb'), 'en-us/any');
  });

  it('takes the text of the message\'s channel, never one of another channel', () => {
    assert.equal(pick(texts, 'fr', undefined, 'voice'), 'fr/voice');
    assert.equal(pick(texts, 'fr', undefined, 'sms'), 'fr/sms');
    assert.equal(pick([text('fr', 'voice')], 'fr', undefined, 'sms'), undefined);
    // A channel's own text before the text of every channel of the same locale.
    assert.equal(pick([text('it'), text('it', 'sms')], 'it'), 'it/sms');
  });

  it('falls back to the language of the number\'s country, then to the template\'s default', () => {
    assert.equal(pick(texts, undefined, 'MX'), 'es/any');
    assert.equal(pick(texts, undefined, 'BR'), 'pt-BR/any');
    assert.equal(pick(texts, 'ja', 'AT'), 'de-DE/any', 'a requested locale without a text falls through to the country\'s');
    assert.equal(pick(texts, 'ja', 'JP'), undefined, 'neither has a text: the default');
    assert.equal(pick(texts, undefined, 'CH'), undefined, 'a country of several languages has none of its own');
    assert.equal(pick(texts, undefined, undefined), undefined);
    assert.equal(pick([], 'es', 'ES'), undefined);
  });

  it('ignores a requested value that is no locale tag', () => {
    assert.equal(pick(texts, 'not a tag!', 'DE'), 'de-DE/any');
  });
});

describe('locale helpers', () => {
  it('tells tags from other strings and compares them without case or separator', () => {
    for (const tag of ['en', 'en-us', 'en_US', 'zh-Hant-HK', 'fil']) assert.ok(isLocaleTag(tag), tag);
    for (const bad of ['', 'e', 'english!', 'en-', 'en us', 'x'.repeat(40)]) assert.ok(!isLocaleTag(bad), bad);
    assert.equal(canonicalLocale('en_US'), 'en-us');
  });

  it('knows the language of a country, and the voice language of a locale', () => {
    assert.equal(countryLanguage('GR'), 'el');
    assert.equal(countryLanguage('US'), 'en');
    assert.equal(countryLanguage('BE'), undefined);
    assert.equal(voiceLanguageOf('pt-BR'), 'pt_br');
    assert.equal(voiceLanguageOf('es-mx'), 'es');
    assert.equal(voiceLanguageOf('nb'), 'no');
    assert.equal(voiceLanguageOf('el'), 'en', 'no Greek voice among the engine\'s languages');
  });
});
