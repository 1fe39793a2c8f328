import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generatePinId } from '../../src/domain/pin-generation.js';
import { pinIdOfPreludeId, preludeVerificationId } from '../../src/domain/prelude-ids.js';

describe('Prelude verification ids', () => {
  it('name each PIN by an id of Prelude\'s shape, from which the PIN id comes back', () => {
    for (let i = 0; i < 200; i++) {
      const pinId = generatePinId();
      const id = preludeVerificationId(pinId);
      assert.match(id, /^vrf_[0-7][0-9a-hjkmnp-tv-z]{25}$/);
      assert.equal(pinIdOfPreludeId(id), pinId);
    }
    assert.equal(preludeVerificationId('0'.repeat(32)), `vrf_${'0'.repeat(26)}`);
    assert.equal(preludeVerificationId('F'.repeat(32)), `vrf_7${'z'.repeat(25)}`);
  });

  it('name no PIN by anything else', () => {
    for (const id of ['vrf_', `vrf_8${'0'.repeat(25)}`, `vrf_${'0'.repeat(25)}u`, `VRF_${'0'.repeat(26)}`, `vrf_${'0'.repeat(27)}`, `VE${'0'.repeat(32)}`]) {
      assert.equal(pinIdOfPreludeId(id), undefined, id);
    }
  });
});
