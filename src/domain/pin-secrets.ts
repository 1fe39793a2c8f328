// How a PIN is kept at rest: an HMAC to verify it and an AES-256-GCM ciphertext so that resend can
// deliver the same PIN. Both keys are derived from TWOFA_SECRET, which never sits in the database.
// Each stored value is tagged with the id of the secret it was made under, so the secret can be
// rotated: old secrets stay in the keyring (TWOFA_PREVIOUS_SECRETS) until their PINs have expired.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

interface DerivedKeys {
  id: string;
  hmacKey: Buffer;
  encryptionKey: Buffer;
  auditKey: Buffer;
  auditHeadKey: Buffer;
  answerKey: Buffer;
}

function derive(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), `twofa ${purpose} v1`, 32));
}

function deriveKeys(secret: string): DerivedKeys {
  // The id is itself derived, so it identifies the secret without revealing anything about it.
  const id = derive(secret, 'key id').subarray(0, 4).toString('hex');
  return { id, hmacKey: derive(secret, 'pin hmac'), encryptionKey: derive(secret, 'pin encryption'), auditKey: derive(secret, 'audit chain'), auditHeadKey: derive(secret, 'audit head'), answerKey: derive(secret, 'idempotent answer') };
}

export class PinKeyring {
  private readonly current: DerivedKeys;
  private readonly byId = new Map<string, DerivedKeys>();

  constructor(secret: string, previousSecrets: readonly string[] = []) {
    this.current = deriveKeys(secret);
    for (const keys of [this.current, ...previousSecrets.map(deriveKeys)]) {
      if (!this.byId.has(keys.id)) this.byId.set(keys.id, keys);
    }
  }

  /** The id of the current secret's keys: the `<keyId>` prefix of what is hashed or encrypted now. */
  get currentKeyId(): string {
    return this.current.id;
  }

  /** `<keyId>:<base64 HMAC-SHA256(pinId || pin)>`; binding the pinId stops one PIN's hash matching another's. */
  hashPin(pinId: string, pin: string): string {
    return `${this.current.id}:${this.mac(this.current, pinId, pin).toString('base64')}`;
  }

  /** Constant-time check of a candidate PIN against a stored hash; false for a hash of an unknown key. */
  matches(storedHash: string, pinId: string, candidate: string): boolean {
    const [keyId, encoded] = storedHash.split(':');
    const keys = keyId === undefined ? undefined : this.byId.get(keyId);
    if (keys === undefined || encoded === undefined) return false;
    const expected = Buffer.from(encoded, 'base64');
    const actual = this.mac(keys, pinId, candidate);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  /**
   * `<keyId>:<base64 iv|tag|ciphertext>`, with the pinId as associated data so a ciphertext cannot be
   * moved to another PIN. For PINs only: other secrets have their own helpers below.
   */
  encryptPin(pinId: string, pin: string): string {
    return this.seal('encryptionKey', pinId, pin);
  }

  /** The PIN, or null when the ciphertext was made under a secret no longer configured or was tampered with. */
  decryptPin(pinId: string, stored: string): string | null {
    return this.open('encryptionKey', pinId, stored);
  }

  /**
   * A webhook subscription's signing secret, under the PIN encryption key with associated data bound
   * to the subscription (never equal to a pinId, which is hex), so it cannot be moved to another.
   */
  encryptWebhookSecret(subscriptionId: string, secret: string): string {
    return this.seal('encryptionKey', webhookSecretContext(subscriptionId), secret);
  }

  /** The secret, or null when it was encrypted under a secret no longer configured or was tampered with. */
  decryptWebhookSecret(subscriptionId: string, stored: string): string | null {
    return this.open('encryptionKey', webhookSecretContext(subscriptionId), stored);
  }

  /**
   * An account's Twilio Auth Token (it signs the account's Verify webhook events), under the PIN
   * encryption key with associated data bound to the account, so it cannot be moved to another.
   */
  encryptTwilioAuthToken(accountId: string, token: string): string {
    return this.seal('encryptionKey', twilioAuthTokenContext(accountId), token);
  }

  /** The Auth Token, or null when it was encrypted under a secret no longer configured or was tampered with. */
  decryptTwilioAuthToken(accountId: string, stored: string): string | null {
    return this.open('encryptionKey', twilioAuthTokenContext(accountId), stored);
  }

  /**
   * A test number's fixed code: readable (a send to the number makes it the PIN), so encrypted like a
   * PIN, with associated data bound to the test-number entry.
   */
  encryptTestNumberCode(entryId: string, code: string): string {
    return this.seal('encryptionKey', testNumberCodeContext(entryId), code);
  }

  /** The code, or null when it was encrypted under a secret no longer configured or was tampered with. */
  decryptTestNumberCode(entryId: string, stored: string): string | null {
    return this.open('encryptionKey', testNumberCodeContext(entryId), stored);
  }

  /**
   * A factor's secret (a TOTP seed): read at each code check, so encrypted like a PIN, with associated
   * data bound to the factor's SID so a ciphertext cannot be moved to another factor.
   */
  encryptFactorSecret(factorSid: string, secret: string): string {
    return this.seal('encryptionKey', factorSecretContext(factorSid), secret);
  }

  /** The secret, or null when it was encrypted under a secret no longer configured or was tampered with. */
  decryptFactorSecret(factorSid: string, stored: string): string | null {
    return this.open('encryptionKey', factorSecretContext(factorSid), stored);
  }

  /**
   * An idempotent request's stored answer, encrypted under a key of its own with the key's row id as
   * associated data: an answer may hold a secret shown once (a new API key), which must not sit in
   * the database in clear.
   */
  encryptAnswer(rowId: string, answer: string): string {
    return this.seal('answerKey', rowId, answer);
  }

  decryptAnswer(rowId: string, stored: string): string | null {
    return this.open('answerKey', rowId, stored);
  }

  private seal(key: 'encryptionKey' | 'answerKey', associated: string, text: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current[key], iv);
    cipher.setAAD(Buffer.from(associated, 'utf8'));
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return `${this.current.id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  private open(key: 'encryptionKey' | 'answerKey', associated: string, stored: string): string | null {
    const [keyId, encoded] = stored.split(':');
    const keys = keyId === undefined ? undefined : this.byId.get(keyId);
    if (keys === undefined || encoded === undefined) return null;
    const raw = Buffer.from(encoded, 'base64');
    if (raw.length < 29) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', keys[key], raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(associated, 'utf8'));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }

  /** `<keyId>:<hex HMAC-SHA256>` of an audit entry's canonical text, keyed apart from the PIN keys. */
  sealAudit(text: string): string {
    return this.keyedMac('auditKey', text);
  }

  /** Whether `stored` seals `text` under the current or a previous secret (constant-time compare). */
  checkAuditSeal(stored: string, text: string): boolean {
    return this.checkKeyedMac('auditKey', stored, text);
  }

  /** `<keyId>:<hex HMAC-SHA256>` of an audit chain head's text, under a key of its own. */
  signAuditHead(text: string): string {
    return this.keyedMac('auditHeadKey', text);
  }

  checkAuditHeadSignature(stored: string, text: string): boolean {
    return this.checkKeyedMac('auditHeadKey', stored, text);
  }

  private keyedMac(key: 'auditKey' | 'auditHeadKey', text: string): string {
    return `${this.current.id}:${createHmac('sha256', this.current[key]).update(text, 'utf8').digest('hex')}`;
  }

  private checkKeyedMac(key: 'auditKey' | 'auditHeadKey', stored: string, text: string): boolean {
    const [keyId, encoded] = stored.split(':');
    const keys = keyId === undefined ? undefined : this.byId.get(keyId);
    if (keys === undefined || encoded === undefined) return false;
    const expected = Buffer.from(encoded, 'hex');
    const actual = createHmac('sha256', keys[key]).update(text, 'utf8').digest();
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  private mac(keys: DerivedKeys, pinId: string, pin: string): Buffer {
    return createHmac('sha256', keys.hmacKey).update(pinId, 'utf8').update(pin, 'utf8').digest();
  }
}

// The associated data of the other secrets kept under the PIN encryption key: each has a prefix of
// its own, and none is ever equal to a pinId (bare upper hex), so no ciphertext opens as another kind.
function webhookSecretContext(subscriptionId: string): string {
  return `webhook-subscription:${subscriptionId}`;
}

function twilioAuthTokenContext(accountId: string): string {
  return `twilio-auth-token:${accountId}`;
}

function testNumberCodeContext(entryId: string): string {
  return `test-number:${entryId}`;
}

function factorSecretContext(factorSid: string): string {
  return `factor-secret:${factorSid}`;
}
