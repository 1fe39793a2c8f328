// A signed head of one account's audit chain: the seq and hash of its newest entry at `signedAt`,
// signed with a key derived from TWOFA_SECRET (never in the database), so whoever can only write to
// the database cannot make one up. A chain that no longer holds an entry with that seq and hash lost
// its tail (or was rewritten past it); a hash chain alone cannot tell a shortened chain from a short one.
// Printed as one token, `ah1.<base64url JSON [accountId, seq, hash, signedAt]>.<signature>`, that an
// operator can keep anywhere and hand back to `twofa audit verify --head`.
import type { PinKeyring } from './pin-secrets.js';

export interface AuditHead {
  accountId: string;
  seq: number;
  /** The hash of entry `seq`. */
  hash: string;
  signedAt: number;
  signature: string;
}

export type UnsignedAuditHead = Omit<AuditHead, 'signature'>;

const TOKEN_PREFIX = 'ah1';

function headText(h: UnsignedAuditHead): string {
  return JSON.stringify(['twofa audit head v1', h.accountId, h.seq, h.hash, h.signedAt]);
}

export function signAuditHead(keyring: PinKeyring, head: UnsignedAuditHead): AuditHead {
  return { ...head, signature: keyring.signAuditHead(headText(head)) };
}

/** Whether the head was signed under the current or a previous secret, unaltered. */
export function auditHeadSignatureValid(keyring: PinKeyring, head: AuditHead): boolean {
  return keyring.checkAuditHeadSignature(head.signature, headText(head));
}

export function formatAuditHead(head: AuditHead): string {
  const payload = Buffer.from(JSON.stringify([head.accountId, head.seq, head.hash, head.signedAt]), 'utf8').toString('base64url');
  return `${TOKEN_PREFIX}.${payload}.${head.signature}`;
}

/** The head in a token formatAuditHead wrote, or null when it is not one (its signature is not checked here). */
export function parseAuditHead(token: string): AuditHead | null {
  const [prefix, payload, signature, extra] = token.trim().split('.');
  if (prefix !== TOKEN_PREFIX || payload === undefined || signature === undefined || extra !== undefined) return null;
  try {
    const fields: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (!Array.isArray(fields) || fields.length !== 4) return null;
    const [accountId, seq, hash, signedAt] = fields as unknown[];
    if (typeof accountId !== 'string' || !Number.isSafeInteger(seq) || typeof hash !== 'string' || !Number.isSafeInteger(signedAt)) return null;
    return { accountId, seq: seq as number, hash, signedAt: signedAt as number, signature };
  } catch {
    return null;
  }
}
