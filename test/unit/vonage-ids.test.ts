// Vonage request ids name PINs one to one (domain/vonage-ids.ts): a round trip loses nothing, and a
// string that is no request id names no PIN.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generatePinId } from '../../src/domain/pin-generation.js';
import { pinIdOfVonageRequestId, vonageRequestId } from '../../src/domain/vonage-ids.js';

describe('Vonage request ids', () => {
  it('are UUID-shaped and name their PIN back, in either case', () => {
    for (let i = 0; i < 100; i++) {
      const pinId = generatePinId();
      const requestId = vonageRequestId(pinId);
      assert.match(requestId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.equal(pinIdOfVonageRequestId(requestId), pinId);
      assert.equal(pinIdOfVonageRequestId(requestId.toUpperCase()), pinId);
    }
  });

  it('name no PIN when they are not request ids', () => {
    for (const text of ['', 'c11236f4-00bf-4b89-84ba-88b25df9731', 'c11236f400bf4b8984ba88b25df97315', 'g11236f4-00bf-4b89-84ba-88b25df97315', '../c11236f4-00bf-4b89-84ba-88b25df97315']) {
      assert.equal(pinIdOfVonageRequestId(text), undefined, text);
    }
  });
});
