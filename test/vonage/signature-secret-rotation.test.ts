// A Vonage application's signature secret survives a rotation of TWOFA_SECRET: at start it moves to
// the current key (so that TWOFA_PREVIOUS_SECRETS can drop the old one), and one that no configured
// key opens is left as it is and reported.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import pino from 'pino';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import { vonageSignatureSecretId } from '../../src/domain/vonage-callbacks.js';
import { reencryptVonageSignatureSecrets } from '../../src/service/vonage-applications.js';
import { openStore } from '../../src/store/open-store.js';

describe('Vonage signature secrets across a TWOFA_SECRET rotation', () => {
  it('re-encrypts them under the current secret, and reports one no configured secret opens', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-vonage-secrets-'));
    const store = await openStore(`sqlite:${path.join(dir, 'twofa.db')}`);
    try {
      const [oldSecret, newSecret] = ['old-secret-0123456789-0123456789-abcdef', 'new-secret-0123456789-0123456789-abcdef'];
      const before = new PinKeyring(oldSecret);
      const id = vonageSignatureSecretId('APP1');
      await store.vonage.saveApplication({ accountId: 'A', applicationId: 'APP1', publicKey: 'pem', callbackUrl: 'https://hooks.example.com/v', signatureSecretCiphertext: before.encryptWebhookSecret(id, 'the-signature-secret-of-app-one-0123'), updatedAt: 1 });

      const logged: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => { logged.push(line); } });
      const after = new PinKeyring(newSecret, [oldSecret]);
      await reencryptVonageSignatureSecrets(store, after, logger);
      const [moved] = await store.vonage.listSignatureSecrets();
      assert.ok(moved!.ciphertext.startsWith(`${after.currentKeyId}:`), 'under the current secret');
      assert.equal(new PinKeyring(newSecret).decryptWebhookSecret(id, moved!.ciphertext), 'the-signature-secret-of-app-one-0123', 'readable without the old secret');
      assert.deepEqual(logged, []);

      await reencryptVonageSignatureSecrets(store, new PinKeyring('another-secret-0123456789-0123456789-ab'), logger);
      assert.equal((await store.vonage.listSignatureSecrets())[0]!.ciphertext, moved!.ciphertext, 'left as it is');
      assert.match(logged.join(''), /Vonage signature secrets made under a TWOFA_SECRET that is no longer configured/);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
