// What a listing shows of an API key (the stored `prefix`) must never be enough to guess the rest of
// it against its unsalted SHA-256: at most 8 characters after the `tfa_` marker and never more than a
// quarter of the key. A key chosen by the operator (TWOFA_BOOTSTRAP_API_KEY) must be long enough.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { apiKeyPrefix, generateApiKey } from '../../src/service/api-keys.js';

const BASE_ENV = { TWOFA_SECRET: 'unit-secret-0123456789-0123456789-abcdef' };

describe('API key prefix', () => {
  it('shows at most 8 characters after tfa_ and never more than a quarter of any key', () => {
    const keys = [generateApiKey(), 'x'.repeat(16), 'y'.repeat(32), `tfa_${'z'.repeat(28)}`, 'walkthrough-key-0123456789abcdefghij', `tfa_${'q'.repeat(200)}`];
    for (const key of keys) {
      const prefix = apiKeyPrefix(key);
      assert.ok(key.startsWith(prefix), key);
      assert.ok(prefix.length * 4 <= key.length, `${prefix.length} of ${key.length} characters shown`);
      const afterMarker = key.startsWith('tfa_') ? prefix.length - 4 : prefix.length;
      assert.ok(afterMarker <= 8, `${afterMarker} characters shown after the marker`);
    }
  });

  it('still tells generated keys apart by a few random characters', () => {
    const key = generateApiKey();
    assert.match(apiKeyPrefix(key), /^tfa_[A-Za-z0-9_-]{7,8}$/);
  });

  it('TWOFA_BOOTSTRAP_API_KEY must be 32 characters or more', () => {
    assert.throws(() => loadConfig({ ...BASE_ENV, TWOFA_BOOTSTRAP_API_KEY: 'k'.repeat(31) }), (err: unknown) => err instanceof ConfigError && /TWOFA_BOOTSTRAP_API_KEY: must be at least 32/.test(err.message));
    assert.throws(() => loadConfig({ ...BASE_ENV, TWOFA_BOOTSTRAP_API_KEY: 'walkthrough-key-0123456789' }), ConfigError);
    assert.equal(loadConfig({ ...BASE_ENV, TWOFA_BOOTSTRAP_API_KEY: 'k'.repeat(32) }).bootstrapApiKey, 'k'.repeat(32));
  });
});
