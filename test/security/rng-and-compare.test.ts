// T14 rng-quality-and-source and T15 constant-time-compare. The lint rule that bans Math.random is
// present and src/ has no use of it; a large sample of 6-digit PINs passes a per-position χ² test,
// has 10 % leading zeros and the expected number of distinct values; every candidate PIN, whatever
// its length and however many digits are right, is compared as a fixed-length HMAC by one
// crypto.timingSafeEqual (observed, not read from the source).
// Standards: NIST 800-63B §5.1.3.2 (≥ 20 bits, approved RBG), §5.2.7; ASVS 4.0.3 2.7.6, 2.7.5, 6.3.1;
// ASVS 5.0 6.5.3, 6.5.4, 11.2.4, 11.5.1.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { describe, it, after, mock } from 'node:test';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import { generatePin, generatePinId } from '../../src/domain/pin-generation.js';
import { PROJECT_ROOT } from '../support/server-process.js';
import { createResults, scale } from './support/results.js';

const results = createResults('rng-and-compare', {
  tests: ['T14', 'T15'],
  standards: ['NIST 800-63B §5.1.3.2', 'NIST 800-63B §5.2.7', 'ASVS 4.0.3 2.7.6', 'ASVS 4.0.3 6.3.1', 'ASVS 5.0 6.5.3', 'ASVS 5.0 6.5.4', 'ASVS 5.0 11.2.4', 'ASVS 5.0 11.5.1'],
});
after(() => results.save());

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

/** Upper tail of χ² with 9 degrees of freedom at 0.001. */
const CHI2_DF9_P001 = 27.877;

describe('randomness and comparison', () => {
  it('T14: no Math.random in src/ (and the lint rule that bans it); PINs pass χ², leading-zero and occupancy checks', () => {
    const eslint = fs.readFileSync(path.join(PROJECT_ROOT, 'eslint.config.js'), 'utf8');
    assert.match(eslint, /object: 'Math', property: 'random'/);
    const hits = sourceFiles(path.join(PROJECT_ROOT, 'src')).filter((f) => /Math\.random\s*\(/.test(fs.readFileSync(f, 'utf8')));
    assert.deepEqual(hits, []);
    const n = scale(100_000, 1_000_000);
    const counts = Array.from({ length: 6 }, () => new Array<number>(10).fill(0));
    const seen = new Set<string>();
    let leadingZero = 0;
    for (let i = 0; i < n; i += 1) {
      const pin = generatePin('NUMERIC', 6);
      seen.add(pin);
      if (pin[0] === '0') leadingZero += 1;
      for (let p = 0; p < 6; p += 1) counts[p]![pin.charCodeAt(p) - 48]! += 1;
    }
    const chi2 = counts.map((row) => row.reduce((s, c) => s + (c - n / 10) ** 2 / (n / 10), 0));
    const expectedDistinct = 1e6 * (1 - Math.exp(-n / 1e6));
    const sd = Math.sqrt(1e6 * Math.exp(-n / 1e6) * (1 - (1 + n / 1e6) * Math.exp(-n / 1e6)));
    results.set('T14.samples', n);
    results.set('T14.chi2MaxDf9', Number(Math.max(...chi2).toFixed(2)));
    results.set('T14.leadingZeroShare', Number((leadingZero / n).toFixed(4)));
    results.set('T14.distinct', seen.size);
    results.set('T14.expectedDistinct', Math.round(expectedDistinct));
    for (const c of chi2) assert.ok(c < CHI2_DF9_P001, `χ² ${c.toFixed(2)}`);
    assert.ok(Math.abs(leadingZero / n - 0.1) < 4 * Math.sqrt(0.09 / n), `leading zeros ${leadingZero / n}`);
    assert.ok(Math.abs(seen.size - expectedDistinct) < 6 * sd + 50, `distinct ${seen.size} vs ${expectedDistinct.toFixed(0)}`);
    const ids = new Set(Array.from({ length: 10_000 }, () => generatePinId()));
    assert.equal(ids.size, 10_000);
    for (const id of ids) assert.match(id, /^[0-9A-F]{32}$/);
    const pinIdsOk = ids.size === 10_000 && [...ids].every((id) => /^[0-9A-F]{32}$/.test(id));
    const pinsOk = chi2.every((c) => c < CHI2_DF9_P001) && Math.abs(leadingZero / n - 0.1) < 4 * Math.sqrt(0.09 / n) && Math.abs(seen.size - expectedDistinct) < 6 * sd + 50;
    results.check('T14', hits.length === 0 && pinsOk && pinIdsOk, `${hits.length} Math.random in src/ (lint rule present); ${n} PINs: max per-position χ²(9) ${Math.max(...chi2).toFixed(2)} < ${CHI2_DF9_P001}, leading zeros ${(100 * leadingZero / n).toFixed(2)} %, ${seen.size} distinct (expected ${expectedDistinct.toFixed(0)}); pinIds 128-bit hex`);
  });

  it('T15: every candidate, whatever its length or matching prefix, is checked by one timingSafeEqual of two 32-byte HMACs', () => {
    // Observed at the module boundary: node:crypto's timingSafeEqual is wrapped and the ESM bindings
    // of the built-in resynced, so the keyring's own import calls the wrapper. A comparison that
    // stopped at the first wrong character, returned early on a wrong length or compared the PIN
    // itself would show here as a missing call or as compared values of another size. (The
    // wall-clock figure is in the benchmark: bench/key-and-pin-timing.ts.)
    const keyring = new PinKeyring('a-test-secret-of-at-least-32-characters!!');
    const pinId = generatePinId();
    const pin = '123456';
    const stored = keyring.hashPin(pinId, pin);
    const candidates = ['', '1', '12345', '123450', '900000', '123456', '1234567', '123456 ', ' 123456', '１２３４５６', 'x'.repeat(10_000)];
    const original = crypto.timingSafeEqual;
    const compared: string[] = [];
    const wrapper = mock.method(crypto, 'timingSafeEqual', (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.push(`${a.byteLength}:${b.byteLength}`);
      return original(a, b);
    });
    syncBuiltinESMExports();
    const paths = new Set<string>();
    try {
      for (const candidate of candidates) {
        compared.length = 0;
        const matched = keyring.matches(stored, pinId, candidate);
        paths.add(compared.join(', '));
        assert.equal(matched, candidate === pin, `only the exact PIN matches: ${JSON.stringify(candidate.slice(0, 20))}`);
        assert.deepEqual(compared, ['32:32'], `one compare of two 32-byte HMACs for a candidate of ${candidate.length} characters`);
      }
    } finally {
      wrapper.mock.restore();
      syncBuiltinESMExports();
    }
    results.set('T15.candidates', candidates.length);
    results.check('T15', paths.size === 1,
      `HMAC-SHA256(pinId‖pin) compared with crypto.timingSafeEqual: ${candidates.length} candidates of 0 to 10 000 characters (none, 5 or all 6 digits right) → one compare of two 32-byte digests each, only the exact PIN true`);
  });
});
