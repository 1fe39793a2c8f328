// The secrets kept under the PIN encryption key besides PINs (a webhook subscription's signing
// secret, a Twilio Auth Token, a test number's code) have helpers of their own, each binding the
// ciphertext to its owner: it opens only for that owner and kind, never as a PIN, and what databases
// already hold (sealed with the same associated data as a PIN ciphertext would be) still opens.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PinKeyring } from '../../src/domain/pin-secrets.js';

const keyring = new PinKeyring('x'.repeat(32));
const other = new PinKeyring('y'.repeat(32));

const KINDS = [
  { kind: 'webhook secret', context: 'webhook-subscription:', seal: keyring.encryptWebhookSecret, open: keyring.decryptWebhookSecret, openOther: other.decryptWebhookSecret },
  { kind: 'Twilio Auth Token', context: 'twilio-auth-token:', seal: keyring.encryptTwilioAuthToken, open: keyring.decryptTwilioAuthToken, openOther: other.decryptTwilioAuthToken },
  { kind: 'test number code', context: 'test-number:', seal: keyring.encryptTestNumberCode, open: keyring.decryptTestNumberCode, openOther: other.decryptTestNumberCode },
  { kind: 'TOTP factor seed', context: 'factor-secret:', seal: keyring.encryptFactorSecret, open: keyring.decryptFactorSecret, openOther: other.decryptFactorSecret },
] as const;

describe('PinKeyring stored secrets', () => {
  for (const { kind, context, seal, open, openOther } of KINDS) {
    it(`opens a ${kind} for its owner only, under the secret it was made with`, () => {
      const sealed = seal.call(keyring, 'OWNER1', 'value-1');
      assert.equal(open.call(keyring, 'OWNER1', sealed), 'value-1');
      assert.equal(open.call(keyring, 'OWNER2', sealed), null);
      assert.equal(openOther.call(other, 'OWNER1', sealed), null);
    });

    it(`opens a ${kind} stored as a PIN ciphertext under its context`, () => {
      assert.equal(open.call(keyring, 'OWNER1', keyring.encryptPin(`${context}OWNER1`, 'value-0')), 'value-0');
    });

    it(`never opens a ${kind} as another kind, nor as a PIN`, () => {
      const sealed = seal.call(keyring, 'ID1', 'secret');
      for (const otherKind of KINDS) if (otherKind.kind !== kind) assert.equal(otherKind.open.call(keyring, 'ID1', sealed), null);
      assert.equal(keyring.decryptPin('ID1', sealed), null);
    });
  }
});
