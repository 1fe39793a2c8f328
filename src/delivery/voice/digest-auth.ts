// HTTP Digest authentication as SIP uses it (RFC 3261 22.4, RFC 2617, RFC 7616, RFC 8760): the
// answer to a 401 WWW-Authenticate or 407 Proxy-Authenticate challenge. MD5 with qop=auth is what
// trunks ask for in practice; MD5-sess, SHA-256 and SHA-256-sess and the RFC 2069 form (no qop)
// are answered as well. qop=auth-int is used only when the server offers nothing else.
import { createHash, randomBytes } from 'node:crypto';

export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque?: string;
  algorithm: DigestAlgorithm;
  /** The qop values offered; empty for an RFC 2069 challenge. */
  qop: string[];
  /** The server says the nonce expired, not that the password is wrong. */
  stale: boolean;
}

export type DigestAlgorithm = 'MD5' | 'MD5-sess' | 'SHA-256' | 'SHA-256-sess';
const ALGORITHMS: readonly DigestAlgorithm[] = ['MD5', 'MD5-sess', 'SHA-256', 'SHA-256-sess'];

/**
 * The challenges in one or more WWW-Authenticate / Proxy-Authenticate values that we can answer,
 * best first (SHA-256 before MD5, as RFC 8760 asks).
 */
export function parseChallenges(values: readonly string[]): DigestChallenge[] {
  const challenges: DigestChallenge[] = [];
  for (const value of values) {
    for (const text of splitChallenges(value)) {
      const match = /^Digest\s+(.*)$/is.exec(text.trim());
      if (match === null) continue;
      const params = parseParams(match[1] as string);
      const realm = params.get('realm');
      const nonce = params.get('nonce');
      if (realm === undefined || nonce === undefined) continue;
      const algorithmText = params.get('algorithm') ?? 'MD5';
      const algorithm = ALGORITHMS.find((name) => name.toLowerCase() === algorithmText.toLowerCase());
      if (algorithm === undefined) continue;
      const qop = (params.get('qop') ?? '').split(',').map((q) => q.trim().toLowerCase()).filter((q) => q !== '');
      // A -sess algorithm needs a cnonce, which only comes with a qop.
      if (algorithm.endsWith('-sess') && qop.length === 0) continue;
      const opaque = params.get('opaque');
      challenges.push({ realm, nonce, algorithm, qop, stale: (params.get('stale') ?? '').toLowerCase() === 'true', ...(opaque !== undefined && { opaque }) });
    }
  }
  return challenges.sort((a, b) => strength(b) - strength(a));
}

function strength(challenge: DigestChallenge): number {
  return challenge.algorithm.startsWith('SHA-256') ? 1 : 0;
}

export interface DigestCredentials {
  username: string;
  password: string;
}

export interface DigestRequest {
  method: string;
  uri: string;
  /** The request body, for qop=auth-int. */
  body?: Buffer;
  /** How many times this nonce has been used, this one included (nc). */
  nonceCount?: number;
  /** Fixed only in tests; random otherwise. */
  cnonce?: string;
}

/** The Authorization / Proxy-Authorization value answering `challenge`. */
export function digestAuthorization(challenge: DigestChallenge, credentials: DigestCredentials, request: DigestRequest): string {
  const hashName = challenge.algorithm.startsWith('SHA-256') ? 'sha256' : 'md5';
  const hash = (text: string | Buffer): string => createHash(hashName).update(text).digest('hex');
  const qop = challenge.qop.includes('auth') ? 'auth' : challenge.qop.includes('auth-int') ? 'auth-int' : undefined;
  const cnonce = request.cnonce ?? randomBytes(12).toString('hex');
  const nc = (request.nonceCount ?? 1).toString(16).padStart(8, '0');

  let ha1 = hash(`${credentials.username}:${challenge.realm}:${credentials.password}`);
  if (challenge.algorithm.endsWith('-sess')) ha1 = hash(`${ha1}:${challenge.nonce}:${cnonce}`);
  const ha2 = qop === 'auth-int' ? hash(`${request.method}:${request.uri}:${hash(request.body ?? Buffer.alloc(0))}`) : hash(`${request.method}:${request.uri}`);
  const response = qop === undefined ? hash(`${ha1}:${challenge.nonce}:${ha2}`) : hash(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:${qop}:${ha2}`);

  const parts = [
    `username="${quote(credentials.username)}"`,
    `realm="${quote(challenge.realm)}"`,
    `nonce="${quote(challenge.nonce)}"`,
    `uri="${quote(request.uri)}"`,
    `response="${response}"`,
    `algorithm=${challenge.algorithm}`,
  ];
  if (qop !== undefined) parts.push(`qop=${qop}`, `nc=${nc}`, `cnonce="${cnonce}"`);
  if (challenge.opaque !== undefined) parts.push(`opaque="${quote(challenge.opaque)}"`);
  return `Digest ${parts.join(', ')}`;
}

function quote(text: string): string {
  return text.replace(/["\\]/g, (ch) => `\\${ch}`);
}

/** `name=value, name="quoted, value"` into a map with lower-case names. */
export function parseParams(text: string): Map<string, string> {
  const params = new Map<string, string>();
  const pattern = /\s*([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))\s*,?/gy;
  for (let match = pattern.exec(text); match !== null && match[0] !== ''; match = pattern.exec(text)) {
    const value = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : (match[3] ?? '');
    params.set((match[1] as string).toLowerCase(), value);
  }
  return params;
}

/** Splits `Digest a=1, b=2, Basic realm=x` into one text per challenge. */
function splitChallenges(value: string): string[] {
  const challenges: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] as string;
    if (ch === '"' && value[i - 1] !== '\\') quoted = !quoted;
    if (ch === ',' && !quoted) {
      // A comma followed by `token SP` (not `token=`) starts the next challenge.
      const rest = value.slice(i + 1);
      if (/^\s*[A-Za-z][A-Za-z0-9-]*\s+[A-Za-z0-9_-]+\s*=/.test(rest)) {
        challenges.push(current);
        current = '';
        continue;
      }
    }
    current += ch;
  }
  if (current.trim() !== '') challenges.push(current);
  return challenges;
}
