// The message composer hands voice transports what they need to speak a PIN themselves: the PIN
// apart from the text, the template as written, its language, pace, voice and replay keys, and the
// request's placeholder values. SMS messages carry none of it.
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { composeMessage } from '../../../src/delivery/message-composer.js';
import { DEFAULT_CONFIGURATION } from '../../../src/domain/application-rules.js';
import { generatePinId, generateResourceId } from '../../../src/domain/pin-generation.js';
import { PinKeyring } from '../../../src/domain/pin-secrets.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Channel, Store } from '../../../src/store/store.js';

const keyring = new PinKeyring('v'.repeat(32));
const NOW = 1_700_000_000_000;

describe('composing voice messages', () => {
  let store: Store;
  let accountId: string;
  let applicationId: string;
  let messageId: string;

  before(async () => {
    store = await openStore('sqlite::memory:');
    accountId = (await store.findOrCreateAccount('default', randomUUID(), NOW)).id;
    applicationId = generateResourceId();
    await store.insertApplication({ id: applicationId, accountId, name: 'Shop', enabled: true, configuration: { ...DEFAULT_CONFIGURATION }, createdAt: NOW, updatedAt: NOW });
    messageId = generateResourceId();
    await store.insertMessageTemplate({
      id: messageId,
      accountId,
      applicationId,
      kind: 'sms_voice',
      pinType: 'NUMERIC',
      pinLength: 4,
      messageText: 'Olá {{name}}, o seu código é {{pin}}',
      senderId: '15005550006',
      language: 'pt_br',
      voiceName: 'Camila',
      repeatDtmf: '1#',
      speechRate: 1.5,
      regional: null,
      createdAt: NOW,
      updatedAt: NOW,
    });
  });
  after(() => store.close());

  async function queue(channel: Channel): Promise<void> {
    const pinId = generatePinId();
    const outcome = await store.createPin(
      {
        pin: {
          id: pinId,
          accountId,
          applicationId,
          messageId,
          channel,
          destination: '5511999990000',
          pinHash: keyring.hashPin(pinId, '4829'),
          pinCiphertext: keyring.encryptPin(pinId, '4829'),
          attemptsLeft: 10,
          allowMultipleVerifications: true,
          createdAt: NOW,
          expiresAt: NOW + 600_000,
          deliveryStatus: 'queued',
        },
        outbox: { id: randomUUID(), request: { placeholders: { name: 'Ana' } } },
      },
      [],
      NOW,
    );
    assert.deepEqual(outcome, { allowed: true });
  }

  it('gives a voice message its voice content, and an SMS none', async () => {
    await queue('voice');
    await queue('sms');
    const items = await store.claimOutbox(NOW, NOW + 60_000, 10);
    const composed = await Promise.all(items.map((item) => composeMessage(store, keyring, item, NOW)));
    const voice = composed.find((c) => c.ok && c.message.channel === 'voice');
    const sms = composed.find((c) => c.ok && c.message.channel === 'sms');
    assert.ok(voice?.ok && sms?.ok);
    assert.equal(voice.message.text, 'Olá Ana, o seu código é 4829');
    assert.deepEqual(voice.message.voice, {
      pin: '4829',
      language: 'pt_br',
      speechRate: 1.5,
      voiceName: 'Camila',
      repeatDtmf: '1#',
      template: 'Olá {{name}}, o seu código é {{pin}}',
      placeholders: { name: 'Ana' },
    });
    assert.equal(sms.message.voice, undefined);
  });
});
