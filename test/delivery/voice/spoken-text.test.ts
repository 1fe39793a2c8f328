// What a voice PIN says, in several languages: the template's words as written, the PIN one
// character at a time, the whole read `repeat` times, and the espeak-ng voice for the language.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LANGUAGES } from '../../../src/domain/languages.js';
import {
  composeSpokenMessage,
  ESPEAK_VOICES,
  espeakVoiceFor,
  repeatedSpokenText,
  spokenText,
  wordsPerMinute,
} from '../../../src/delivery/voice/spoken-text.js';
import type { VoiceContent } from '../../../src/delivery/transport.js';

function voice(overrides: Partial<VoiceContent>): VoiceContent {
  return { pin: '482913', language: 'en', speechRate: null, voiceName: null, repeatDtmf: null, template: 'Your code is {{pin}}.', placeholders: {}, ...overrides };
}

describe('spoken text', () => {
  it('English: the PIN digit by digit, the template words unchanged, read twice by default', () => {
    const message = composeSpokenMessage(voice({}));
    assert.deepEqual(message.segments, [
      { kind: 'text', text: 'Your code is' },
      { kind: 'pin', characters: ['4', '8', '2', '9', '1', '3'] },
      { kind: 'text', text: '.' },
    ]);
    assert.equal(spokenText(message), 'Your code is 4, 8, 2, 9, 1, 3.');
    assert.equal(repeatedSpokenText(message), 'Your code is 4, 8, 2, 9, 1, 3. Your code is 4, 8, 2, 9, 1, 3.');
    assert.equal(message.repeat, 2);
    assert.equal(message.espeakVoice, 'en');
    assert.equal(message.wordsPerMinute, 175);
  });

  it('German with placeholders and a faster pace; letters of an alphanumeric PIN are spelled', () => {
    const message = composeSpokenMessage(
      voice({ language: 'de', pin: 'A7K2', speechRate: 1.5, template: 'Hallo {{name}}, Ihr Code für {{shop}} lautet {{pin}}', placeholders: { name: 'Anna', shop: 'ACME' } }),
      { repeat: 3 },
    );
    assert.equal(spokenText(message), 'Hallo Anna, Ihr Code für ACME lautet A, 7, K, 2');
    assert.equal(repeatedSpokenText(message), 'Hallo Anna, Ihr Code für ACME lautet A, 7, K, 2. '.repeat(3).trim());
    assert.equal(message.espeakVoice, 'de');
    assert.equal(message.wordsPerMinute, 263);
  });

  it('European Portuguese in the hyphenated spelling of older SDKs', () => {
    const message = composeSpokenMessage(voice({ language: 'pt-pt', template: 'O seu código é {{pin}}. Obrigado!', pin: '0071' }), { repeat: 1 });
    assert.equal(message.language, 'pt_pt');
    assert.equal(message.espeakVoice, 'pt');
    assert.equal(spokenText(message), 'O seu código é 0, 0, 7, 1. Obrigado!');
    assert.equal(repeatedSpokenText(message), 'O seu código é 0, 0, 7, 1. Obrigado!');
  });

  it('Traditional Chinese (Taiwan, Mandarin) and Japanese keep their own punctuation', () => {
    const zh = composeSpokenMessage(voice({ language: 'zh_tw', template: '您的驗證碼是{{pin}}。', pin: '5521' }));
    assert.equal(zh.espeakVoice, 'cmn');
    assert.equal(spokenText(zh), '您的驗證碼是 5, 5, 2, 1。');
    assert.equal(repeatedSpokenText(zh), '您的驗證碼是 5, 5, 2, 1。 您的驗證碼是 5, 5, 2, 1。');
    const ja = composeSpokenMessage(voice({ language: 'ja', template: '認証コードは{{pin}}です', pin: '1234' }), { repeat: 1 });
    assert.equal(ja.espeakVoice, 'ja');
    assert.equal(repeatedSpokenText(ja), '認証コードは 1, 2, 3, 4 です.');
  });

  it('maps every template language, in both spellings, to an espeak-ng voice', () => {
    assert.equal(Object.keys(ESPEAK_VOICES).length, 22);
    for (const language of LANGUAGES) {
      assert.equal(espeakVoiceFor(language), ESPEAK_VOICES[language]);
      assert.equal(espeakVoiceFor(language.replace('_', '-')), ESPEAK_VOICES[language]);
    }
    assert.equal(espeakVoiceFor('no'), 'nb');
    assert.equal(espeakVoiceFor('pt_br'), 'pt-br');
    assert.equal(espeakVoiceFor('zh-cn'), 'cmn');
    assert.throws(() => espeakVoiceFor('xx'), /unknown template language/);
  });

  it('a placeholder value that spells {{pin}} is read literally, never as the PIN', () => {
    const message = composeSpokenMessage(voice({ template: 'Hi {{name}}, code {{pin}}', placeholders: { name: '{{pin}}' } }), { repeat: 1 });
    assert.equal(spokenText(message), 'Hi {{pin}}, code 4, 8, 2, 9, 1, 3');
    assert.equal(message.segments.filter((s) => s.kind === 'pin').length, 1);
  });

  it('keeps speech rates within 0.5..2 and refuses what cannot be spoken', () => {
    assert.equal(wordsPerMinute(null), 175);
    assert.equal(wordsPerMinute(0.5), 88);
    assert.equal(wordsPerMinute(2), 350);
    assert.equal(wordsPerMinute(9), 350);
    assert.equal(wordsPerMinute(0.1), 88);
    assert.throws(() => composeSpokenMessage(voice({ template: 'Hi {{name}} {{pin}}' })), /no value for placeholder \{\{name\}\}/);
    assert.throws(() => composeSpokenMessage(voice({ language: 'tlh' })), /unknown template language/);
    assert.throws(() => composeSpokenMessage(voice({}), { repeat: 0 }), /repeat/);
    assert.throws(() => composeSpokenMessage(voice({}), { repeat: 6 }), /repeat/);
  });

  it('passes repeatDTMF and the voice name through, empty meaning none', () => {
    const message = composeSpokenMessage(voice({ repeatDtmf: '1#', voiceName: 'Joanna' }));
    assert.equal(message.repeatDtmf, '1#');
    assert.equal(message.voiceName, 'Joanna');
    const none = composeSpokenMessage(voice({ repeatDtmf: '', voiceName: '' }));
    assert.equal(none.repeatDtmf, null);
    assert.equal(none.voiceName, null);
  });
});
