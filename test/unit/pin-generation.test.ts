import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  PIN_ALPHABETS,
  PIN_LENGTH_MAX,
  PIN_LENGTH_MIN,
  PIN_TYPES,
  generatePin,
  generatePinId,
  generateResourceId,
} from '../../src/domain/pin-generation.js';

/** A byte source that hands out the given bytes in order, then fails loudly. */
function scriptedBytes(bytes: number[]): { source: (n: number) => Buffer; requested: number[] } {
  let position = 0;
  const requested: number[] = [];
  const source = (n: number): Buffer => {
    requested.push(n);
    if (position >= bytes.length) throw new Error('scripted byte source exhausted');
    const chunk = bytes.slice(position, position + n);
    position += chunk.length;
    return Buffer.from(chunk);
  };
  return { source, requested };
}

describe('PIN_ALPHABETS', () => {
  it('has the four Infobip PIN types with the expected characters', () => {
    assert.deepEqual([...PIN_TYPES], ['NUMERIC', 'ALPHA', 'HEX', 'ALPHANUMERIC']);
    assert.equal(PIN_ALPHABETS.NUMERIC, '0123456789');
    assert.equal(PIN_ALPHABETS.HEX, '0123456789ABCDEF');
    assert.equal(PIN_ALPHABETS.ALPHA, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ');
    assert.equal(PIN_ALPHABETS.ALPHANUMERIC, '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ');
    assert.equal(PIN_ALPHABETS.ALPHANUMERIC.length, 36);
  });
});

describe('generatePin', () => {
  const patterns: Record<string, RegExp> = {
    NUMERIC: /^[0-9]+$/,
    ALPHA: /^[A-Z]+$/,
    HEX: /^[0-9A-F]+$/,
    ALPHANUMERIC: /^[0-9A-Z]+$/,
  };

  for (const type of PIN_TYPES) {
    it(`${type}: right length and alphabet for every allowed length`, () => {
      for (let length = PIN_LENGTH_MIN; length <= PIN_LENGTH_MAX; length += 1) {
        for (let i = 0; i < 50; i += 1) {
          const pin = generatePin(type, length);
          assert.equal(pin.length, length);
          assert.match(pin, patterns[type] as RegExp);
        }
      }
    });

    it(`${type}: every character of the alphabet shows up`, () => {
      const seen = new Set<string>();
      for (let i = 0; i < 400; i += 1) for (const ch of generatePin(type, 16)) seen.add(ch);
      assert.equal(seen.size, PIN_ALPHABETS[type].length);
    });
  }

  it('NUMERIC is uniform over 100k characters', () => {
    const counts = new Map<string, number>();
    const pins = 10_000;
    const length = 10;
    for (let i = 0; i < pins; i += 1) {
      for (const ch of generatePin('NUMERIC', length)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    const expected = (pins * length) / 10;
    let chiSquare = 0;
    for (const digit of '0123456789') {
      const count = counts.get(digit) ?? 0;
      // ±5% is about 5.3 standard deviations at n=100k, p=0.1: a real bias trips it, chance does not.
      assert.ok(Math.abs(count - expected) <= expected * 0.05, `digit ${digit}: ${count}`);
      chiSquare += (count - expected) ** 2 / expected;
    }
    // 9 degrees of freedom; p(chi² > 50) is about 1e-7.
    assert.ok(chiSquare < 50, `chi-square ${chiSquare}`);
  });

  it('rejects bytes from the incomplete last block (no modulo bias)', () => {
    // 256 % 10 = 6, so bytes 250..255 must be skipped for NUMERIC.
    const { source } = scriptedBytes([250, 251, 252, 253, 254, 255, 0, 249, 13, 127, 7]);
    assert.equal(generatePin('NUMERIC', 4, source), '0937');
  });

  it('maps accepted bytes modulo the alphabet size for each type', () => {
    // 256 % 16 = 0: HEX accepts every byte.
    assert.equal(generatePin('HEX', 4, scriptedBytes([255, 0, 16, 31]).source), 'F00F');
    // 256 % 26 = 22: ALPHA rejects 234..255.
    assert.equal(generatePin('ALPHA', 4, scriptedBytes([234, 255, 0, 25, 233, 26]).source), 'AZZA');
    // 256 % 36 = 4: ALPHANUMERIC rejects 252..255.
    assert.equal(
      generatePin('ALPHANUMERIC', 4, scriptedBytes([252, 253, 254, 255, 251, 0, 35, 10]).source),
      'Z0ZA',
    );
  });

  it('asks again when a whole batch is rejected', () => {
    const { source, requested } = scriptedBytes([...Array(8).fill(255), 1, 2, 3, 4]);
    assert.equal(generatePin('NUMERIC', 4, source), '1234');
    assert.ok(requested.length >= 2);
  });

  it('refuses lengths outside the allowed range', () => {
    for (const length of [0, 1, PIN_LENGTH_MIN - 1, PIN_LENGTH_MAX + 1, 4.5, Number.NaN]) {
      assert.throws(() => generatePin('NUMERIC', length), RangeError, String(length));
    }
  });

  it('fails instead of looping forever on an empty random source', () => {
    assert.throws(() => generatePin('NUMERIC', 4, () => Buffer.alloc(0)), /no bytes/);
  });
});

describe('generatePinId / generateResourceId', () => {
  it('are 32 upper-case hex characters and unique', () => {
    for (const generate of [generatePinId, generateResourceId]) {
      const ids = new Set<string>();
      for (let i = 0; i < 10_000; i += 1) {
        const id = generate();
        assert.match(id, /^[0-9A-F]{32}$/);
        ids.add(id);
      }
      assert.equal(ids.size, 10_000);
    }
  });

  it('encode 16 bytes from the injected source', () => {
    const bytes = Array.from({ length: 16 }, (_, i) => i * 17);
    assert.equal(generatePinId(scriptedBytes(bytes).source), '00112233445566778899AABBCCDDEEFF');
    assert.equal(generateResourceId(scriptedBytes(bytes).source), '00112233445566778899AABBCCDDEEFF');
  });

  it('refuse a short random source', () => {
    assert.throws(() => generatePinId(() => Buffer.alloc(8)), /expected 16/);
  });
});
