// T14 rng-quality-and-source and T15 constant-time-compare. The lint rule that bans Math.random is
// present and src/ has no use of it; a large sample of 6-digit PINs passes a per-position χ² test,
// has 10 % leading zeros and the expected number of distinct values; PINs are compared as HMACs with
// crypto.timingSafeEqual, and the time of a wrong PIN does not depend on how many digits are right
// (Welch's t reported; informative, not a gate).
// Standards: NIST 800-63B §5.1.3.2 (≥ 20 bits, approved RBG), §5.2.7; ASVS 4.0.3 2.7.6, 2.7.5, 6.3.1;
// ASVS 5.0 6.5.3, 6.5.4, 11.2.4, 11.5.1.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, after } from 'node:test';
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
    results.check('T14', true, `0 Math.random in src/ (lint rule present); ${n} PINs: max per-position χ²(9) ${Math.max(...chi2).toFixed(2)} < ${CHI2_DF9_P001}, leading zeros ${(100 * leadingZero / n).toFixed(2)} %, ${seen.size} distinct (expected ${expectedDistinct.toFixed(0)}); pinIds 128-bit hex`);
  });

  it('T15: PINs are compared as fixed-length HMACs with timingSafeEqual; timing does not follow the matching prefix', () => {
    const source = fs.readFileSync(path.join(PROJECT_ROOT, 'src', 'domain', 'pin-secrets.ts'), 'utf8');
    assert.match(source, /timingSafeEqual\(expected, actual\)/);
    assert.match(source, /createHmac\('sha256'/);
    const verifySource = fs.readFileSync(path.join(PROJECT_ROOT, 'src', 'service', 'verify-pin.ts'), 'utf8');
    assert.doesNotMatch(verifySource, /candidate\s*===|===\s*candidate/, 'no plain string comparison of the candidate');
    const keyring = new PinKeyring('a-test-secret-of-at-least-32-characters!!');
    const pinId = generatePinId();
    const pin = '123456';
    const stored = keyring.hashPin(pinId, pin);
    const samples = scale(20_000, 100_000);
    // Interleaved, so that warm-up and machine noise fall on both series alike.
    const none: number[] = [];
    const five: number[] = [];
    for (let i = 0; i < samples + 2000; i += 1) {
      for (const [candidate, into] of [['900000', none], ['123450', five]] as const) {
        const t0 = process.hrtime.bigint();
        keyring.matches(stored, pinId, candidate);
        const dt = Number(process.hrtime.bigint() - t0);
        if (i >= 2000) into.push(dt);
      }
    }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const variance = (xs: number[]) => {
      const m = mean(xs);
      return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
    };
    const t = (mean(none) - mean(five)) / Math.sqrt(variance(none) / samples + variance(five) / samples);
    results.set('T15.welchT', Number(t.toFixed(3)));
    results.set('T15.meanNs0Digits', Math.round(mean(none)));
    results.set('T15.meanNs5Digits', Math.round(mean(five)));
    results.check('T15', true, `HMAC-SHA256(pinId‖pin) compared with crypto.timingSafeEqual; ${samples} compares each with 0 vs 5 matching digits: Welch t = ${t.toFixed(3)}, means ${Math.round(mean(none))} vs ${Math.round(mean(five))} ns (informative)`);
  });
});
