import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { smsTextInfo } from '../../../src/domain/template-rendering.js';
import { concatenationUdh, encodeSmsText } from '../../../src/delivery/smpp/sms-encoding.js';

describe('SMS encoding for submit_sm', () => {
  it('encodes the GSM default alphabet one septet per octet, extension characters behind ESC', () => {
    const encoded = encodeSmsText('@£$ A\n€[');
    assert.equal(encoded.dataCoding, 0);
    assert.deepEqual([...encoded.parts[0]!], [0x00, 0x01, 0x02, 0x20, 0x41, 0x0a, 0x1b, 0x65, 0x1b, 0x3c]);
  });

  it('encodes anything else as UCS-2 big-endian, surrogate pairs included', () => {
    const encoded = encodeSmsText('Жx😀');
    assert.equal(encoded.dataCoding, 8);
    assert.deepEqual(encoded.parts[0], Buffer.from([0x04, 0x16, 0x00, 0x78, 0xd8, 0x3d, 0xde, 0x00]));
  });

  it('fits 160 GSM septets or 70 UCS-2 units in one part, and 153 / 67 per part beyond', () => {
    assert.equal(encodeSmsText('a'.repeat(160)).parts.length, 1);
    assert.deepEqual(encodeSmsText('a'.repeat(161)).parts.map((p) => p.length), [153, 8]);
    assert.equal(encodeSmsText('ж'.repeat(70)).parts.length, 1);
    assert.deepEqual(encodeSmsText('ж'.repeat(71)).parts.map((p) => p.length), [134, 8]);
    assert.deepEqual(encodeSmsText('€'.repeat(80)).parts.map((p) => p.length), [160], '80 extension characters are 160 septets');
    assert.deepEqual(encodeSmsText('€'.repeat(81)).parts.map((p) => p.length), [152, 10], 'an escape pair is never split');
  });

  it('agrees with smsTextInfo on encoding and part count', () => {
    const texts = ['', 'Your code is 123456', 'é'.repeat(300), '{'.repeat(77) + 'a'.repeat(160), `${'ж'.repeat(66)}😀😀`, '🔐'.repeat(100)];
    for (const text of texts) {
      const info = smsTextInfo(text);
      const encoded = encodeSmsText(text);
      assert.equal(encoded.encoding, info.encoding, text.slice(0, 20));
      assert.equal(encoded.parts.length, info.segments, text.slice(0, 20));
    }
  });

  it('has a GSM code for every character smsTextInfo counts as GSM-7', () => {
    for (let code = 0; code < 0x3000; code++) {
      const ch = String.fromCharCode(code);
      if (code >= 0xd800 && code <= 0xdfff) continue;
      if (smsTextInfo(ch).encoding !== 'GSM-7') continue;
      assert.equal(encodeSmsText(ch).dataCoding, 0, `U+${code.toString(16)}`);
    }
  });

  it('builds the 8-bit-reference concatenation header', () => {
    assert.deepEqual([...concatenationUdh(0x1a7, 3, 2)], [0x05, 0x00, 0x03, 0xa7, 3, 2]);
  });
});
