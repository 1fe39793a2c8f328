import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LANGUAGES, LANGUAGE_INPUTS, normalizeLanguage } from '../../src/domain/languages.js';

describe('LANGUAGES', () => {
  it('holds the 22 values of the current Infobip spec', () => {
    assert.deepEqual(
      [...LANGUAGES],
      'en es ca da nl fr de it ja ko no pl ru sv fi hr sl ro pt_pt pt_br zh_cn zh_tw'.split(' '),
    );
  });
});

describe('normalizeLanguage', () => {
  it('accepts both separators and any case, returning the underscore form', () => {
    assert.equal(normalizeLanguage('en'), 'en');
    assert.equal(normalizeLanguage('EN'), 'en');
    assert.equal(normalizeLanguage('pt_pt'), 'pt_pt');
    assert.equal(normalizeLanguage('pt-pt'), 'pt_pt');
    assert.equal(normalizeLanguage('PT-PT'), 'pt_pt');
    assert.equal(normalizeLanguage('zh-TW'), 'zh_tw');
    assert.equal(normalizeLanguage('pt-br'), 'pt_br');
  });

  it('returns null for anything unknown', () => {
    for (const input of ['', 'pt', 'xx', 'english', 'en-us', 'en_', ' en', 'pt--pt', 'zh_cn_x']) {
      assert.equal(normalizeLanguage(input), null, input);
    }
  });
});

describe('LANGUAGE_INPUTS', () => {
  it('lists both spellings of every language, each normalising to a known value', () => {
    assert.equal(LANGUAGE_INPUTS.length, 26);
    for (const spelling of ['en', 'pt_pt', 'pt-pt', 'pt_br', 'pt-br', 'zh_cn', 'zh-cn', 'zh_tw', 'zh-tw']) {
      assert.ok(LANGUAGE_INPUTS.includes(spelling), spelling);
    }
    assert.equal(new Set(LANGUAGE_INPUTS).size, LANGUAGE_INPUTS.length);
    for (const spelling of LANGUAGE_INPUTS) assert.notEqual(normalizeLanguage(spelling), null);
  });
});
