// The secrets kept under the PIN encryption key besides PINs (a Twilio Auth Token, a test number's
// code) have helpers of their own: each opens only for its own owner and kind, and what databases
// already hold (sealed with the same associated data) still opens.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PinKeyring } from '../../src/domain/pin-secrets.js';

describe('PinKeyring stored secrets', () => {
  const keyring = new PinKeyring('x'.repeat(32));

  it('opens a Twilio Auth Token for its account only', () => {
    const sealed = keyring.encryptTwilioAuthToken('ACC1', 'token-1');
    assert.equal(keyring.decryptTwilioAuthToken('ACC1', sealed), 'token-1');
    assert.equal(keyring.decryptTwilioAuthToken('ACC2', sealed), null);
    assert.equal(new PinKeyring('y'.repeat(32)).decryptTwilioAuthToken('ACC1', sealed), null);
  });

  it('opens a test number code for its entry only', () => {
    const sealed = keyring.encryptTestNumberCode('TN1', '123456');
    assert.equal(keyring.decryptTestNumberCode('TN1', sealed), '123456');
    assert.equal(keyring.decryptTestNumberCode('TN2', sealed), null);
  });

  it('never opens one kind of secret as another, nor as a PIN', () => {
    const token = keyring.encryptTwilioAuthToken('ID1', 'secret');
    const code = keyring.encryptTestNumberCode('ID1', 'secret');
    assert.equal(keyring.decryptTestNumberCode('ID1', token), null);
    assert.equal(keyring.decryptTwilioAuthToken('ID1', code), null);
    assert.equal(keyring.decryptWebhookSecret('ID1', token), null);
    assert.equal(keyring.decryptPin('ID1', token), null);
    assert.equal(keyring.decryptPin('ID1', code), null);
  });

  it('opens the values already stored under the same associated data', () => {
    assert.equal(keyring.decryptTwilioAuthToken('ACC1', keyring.encryptPin('twilio-auth-token:ACC1', 'token-0')), 'token-0');
    assert.equal(keyring.decryptTestNumberCode('TN1', keyring.encryptPin('test-number:TN1', '000000')), '000000');
  });
});
