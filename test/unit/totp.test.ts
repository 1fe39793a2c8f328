// RFC 6238's own test vectors (Appendix B: 8 digits, 30 s steps, SHA-1, SHA-256 and SHA-512 with
// their seeds), Base32 round trips, the window a code is accepted in and the Key URI's shape.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base32Decode, base32Encode, matchingStep, otpauthUri, timeStepAt, totpCode, TOTP_DEFAULTS } from '../../src/domain/totp.js';

const SEEDS = {
  sha1: Buffer.from('12345678901234567890'),
  sha256: Buffer.from('12345678901234567890123456789012'),
  sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
} as const;

const VECTORS: Array<[number, string, keyof typeof SEEDS]> = [
  [59, '94287082', 'sha1'], [59, '46119246', 'sha256'], [59, '90693936', 'sha512'],
  [1111111109, '07081804', 'sha1'], [1111111109, '68084774', 'sha256'], [1111111109, '25091201', 'sha512'],
  [1111111111, '14050471', 'sha1'], [1111111111, '67062674', 'sha256'], [1111111111, '99943326', 'sha512'],
  [1234567890, '89005924', 'sha1'], [1234567890, '91819424', 'sha256'], [1234567890, '93441116', 'sha512'],
  [2000000000, '69279037', 'sha1'], [2000000000, '90698825', 'sha256'], [2000000000, '38618901', 'sha512'],
  [20000000000, '65353130', 'sha1'], [20000000000, '77737706', 'sha256'], [20000000000, '47863826', 'sha512'],
];

describe('TOTP (RFC 6238)', () => {
  it('computes every test vector of RFC 6238 Appendix B', () => {
    for (const [seconds, code, alg] of VECTORS) {
      const config = { alg, code_length: 8, time_step: 30 };
      assert.equal(totpCode(SEEDS[alg], timeStepAt(seconds * 1000, config), config), code, `${alg} at ${seconds}`);
    }
  });

  it('round-trips Base32 and refuses what is not Base32', () => {
    assert.equal(base32Encode(Buffer.from('12345678901234567890')), 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    assert.deepEqual(base32Decode('gezdgnbvgy3tqojqgezdgnbvgy3tqojq'), Buffer.from('12345678901234567890'));
    assert.equal(base32Decode('NOT BASE32!'), undefined);
    assert.equal(base32Decode(''), undefined);
  });

  it('accepts a code within skew steps of now only, answering the step it belongs to', () => {
    const config = { ...TOTP_DEFAULTS, skew: 1 };
    const now = 1_800_000_000_000;
    const step = timeStepAt(now, config);
    for (const offset of [-1, 0, 1]) assert.equal(matchingStep(SEEDS.sha1, totpCode(SEEDS.sha1, step + offset, config), now, config), step + offset);
    for (const offset of [-2, 2]) assert.equal(matchingStep(SEEDS.sha1, totpCode(SEEDS.sha1, step + offset, config), now, config), undefined);
    assert.equal(matchingStep(SEEDS.sha1, totpCode(SEEDS.sha1, step - 1, config), now, { ...config, skew: 0 }), undefined);
    assert.equal(matchingStep(SEEDS.sha1, '12345', now, config), undefined, 'a code of another length');
    assert.equal(matchingStep(SEEDS.sha1, '12a456', now, config), undefined);
  });

  it('writes the Key URI authenticator apps scan: issuer:account, then the seed and parameters', () => {
    assert.equal(otpauthUri('GEZDGNBVGY3TQOJQ', 'test-issuer', 'John’s Account Name', TOTP_DEFAULTS),
      'otpauth://totp/test-issuer:John%E2%80%99s%20Account%20Name?secret=GEZDGNBVGY3TQOJQ&issuer=test-issuer&algorithm=SHA1&digits=6&period=30');
  });
});
