// A subscription's signing secret is sealed under the PIN encryption key, bound to the subscription:
// the secrets already stored (sealed with the subscription's context as associated data) still open.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PinKeyring } from '../../src/domain/pin-secrets.js';

describe('PinKeyring webhook secrets', () => {
  const keyring = new PinKeyring('x'.repeat(32));

  it('opens what it sealed for the same subscription only', () => {
    const sealed = keyring.encryptWebhookSecret('SUB1', 'whsec_1');
    assert.equal(keyring.decryptWebhookSecret('SUB1', sealed), 'whsec_1');
    assert.equal(keyring.decryptWebhookSecret('SUB2', sealed), null);
    assert.equal(new PinKeyring('y'.repeat(32)).decryptWebhookSecret('SUB1', sealed), null);
  });

  it('opens secrets stored as PIN ciphertexts under the subscription context', () => {
    assert.equal(keyring.decryptWebhookSecret('SUB1', keyring.encryptPin('webhook-subscription:SUB1', 'whsec_2')), 'whsec_2');
  });
});
