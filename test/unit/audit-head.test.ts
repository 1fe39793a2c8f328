// Signed audit chain heads as tokens: a token round-trips, and a head altered in any field, or signed
// under a secret not configured, does not verify; a secret kept in TWOFA_PREVIOUS_SECRETS still does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditHeadSignatureValid, formatAuditHead, parseAuditHead, signAuditHead } from '../../src/domain/audit-head.js';
import { PinKeyring } from '../../src/domain/pin-secrets.js';

const SECRET = 'unit-secret-0123456789-0123456789-abcdef';
const OTHER = 'other-secret-0123456789-0123456789-abcde';

describe('audit heads', () => {
  const keyring = new PinKeyring(SECRET);
  const head = signAuditHead(keyring, { accountId: 'acc:1', seq: 42, hash: 'k1:abcdef', signedAt: 1_700_000_000_000 });

  it('round-trips through its token and verifies', () => {
    const parsed = parseAuditHead(formatAuditHead(head));
    assert.deepEqual(parsed, head);
    assert.ok(auditHeadSignatureValid(keyring, parsed!));
  });

  it('does not verify once a field is changed, nor under another secret', () => {
    for (const altered of [{ ...head, seq: 41 }, { ...head, hash: 'k1:abcdee' }, { ...head, accountId: 'acc:2' }, { ...head, signedAt: head.signedAt + 1 }]) {
      assert.equal(auditHeadSignatureValid(keyring, altered), false);
    }
    assert.equal(auditHeadSignatureValid(new PinKeyring(OTHER), head), false);
    assert.equal(auditHeadSignatureValid(new PinKeyring(OTHER, [SECRET]), head), true);
  });

  it('refuses tokens that are not heads', () => {
    for (const token of ['', 'ah1', 'ah1.x.y', `ah2.${formatAuditHead(head).split('.').slice(1).join('.')}`, `${formatAuditHead(head)}.extra`]) {
      assert.equal(parseAuditHead(token), null, token);
    }
  });
});
