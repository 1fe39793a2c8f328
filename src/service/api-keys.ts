// API keys: random, shown once, stored only as SHA-256. Every key belongs to an account, and the
// account is the boundary of everything the key can see.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { ApiKeyRecord, Store } from '../store/store.js';
import type { Principal } from './context.js';

export const SCOPE_MANAGE = '2fa:manage';
export const SCOPE_PIN_SEND = '2fa:pin:send';
/**
 * Approving a Twilio verification without its code (POST /v2/.../Verifications/{sid} Status=approved):
 * a key that sends and checks codes must not also be able to wave any PIN of its account through.
 */
export const SCOPE_PIN_APPROVE = '2fa:pin:approve';
export const ALL_SCOPES = [SCOPE_MANAGE, SCOPE_PIN_SEND, SCOPE_PIN_APPROVE] as const;
/** A key created without scopes: everything (2fa:manage holds every other scope). */
export const DEFAULT_SCOPES = [SCOPE_MANAGE, SCOPE_PIN_SEND] as const;
export const DEFAULT_ACCOUNT = 'default';

/** Whether a key may do what `scope` guards: 2fa:manage is Infobip's superset scope, listed on every 2FA endpoint. */
export function hasScope(principal: Pick<Principal, 'scopes'>, scope: string): boolean {
  return principal.scopes.includes(scope) || principal.scopes.includes(SCOPE_MANAGE);
}

/** The marker every generated key starts with: public, so showing it reveals nothing. */
export const API_KEY_MARKER = 'tfa_';
/** Most characters of a key shown and stored after the marker (the whole prefix when there is none). */
const PREFIX_SECRET_CHARACTERS = 8;
/** The shortest key accepted from outside (TWOFA_BOOTSTRAP_API_KEY): 32 characters leave 24 unknown after the prefix. */
export const MIN_API_KEY_LENGTH = 32;

/**
 * What is stored and listed to recognise a key by: the `tfa_` marker and at most 8 characters after
 * it, and never more than a quarter of the key, so a listing never gives away enough of a short key
 * to guess the rest against its unsalted SHA-256.
 */
export function apiKeyPrefix(key: string): string {
  const marker = key.startsWith(API_KEY_MARKER) ? API_KEY_MARKER.length : 0;
  return key.slice(0, Math.min(marker + PREFIX_SECRET_CHARACTERS, Math.floor(key.length / 4)));
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateApiKey(): string {
  return `${API_KEY_MARKER}${randomBytes(32).toString('base64url')}`;
}

export interface CreatedApiKey {
  key: string;
  record: ApiKeyRecord;
}

/** Creates a key (random unless `key` is given) in the named account, creating the account if needed. */
export async function createApiKey(store: Store, options: { accountName?: string; scopes?: readonly string[]; label?: string | null; key?: string; now: number }): Promise<CreatedApiKey> {
  const key = options.key ?? generateApiKey();
  const account = await store.findOrCreateAccount(options.accountName ?? DEFAULT_ACCOUNT, randomUUID(), options.now);
  const scopes = [...(options.scopes ?? DEFAULT_SCOPES)];
  const id = randomUUID();
  const keyPrefix = apiKeyPrefix(key);
  await store.insertApiKey({ id, accountId: account.id, keyHash: hashApiKey(key), keyPrefix, scopes, label: options.label ?? null, createdAt: options.now });
  return {
    key,
    record: { id, accountId: account.id, accountName: account.name, keyPrefix, scopes, label: options.label ?? null, createdAt: options.now, revokedAt: null },
  };
}

/** The key of `Authorization: App <key>` or `Bearer <key>` (scheme case-insensitive), or undefined. */
export function presentedApiKey(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  return /^(App|Bearer)\s+(\S+)\s*$/i.exec(authorization)?.[2];
}

/**
 * Reads `Authorization: App <key>` (Infobip's scheme) or `Bearer <key>`, scheme case-insensitive.
 * Returns undefined for anything else, an unknown key or a revoked one: callers answer all of them alike.
 */
export async function authenticate(store: Store, authorization: string | undefined): Promise<Principal | undefined> {
  const key = presentedApiKey(authorization);
  if (key === undefined) return undefined;
  const record = await store.findApiKeyByHash(hashApiKey(key));
  if (!record || record.revokedAt !== null) return undefined;
  return { accountId: record.accountId, keyId: record.id, scopes: record.scopes };
}

export type BootstrapOutcome =
  | { kind: 'configured-key-created' }
  | { kind: 'configured-key-present' }
  | { kind: 'first-key-created'; key: string }
  | { kind: 'keys-present' };

/**
 * At start: TWOFA_BOOTSTRAP_API_KEY is created if it does not exist yet; with no key at all, a
 * first one is made and returned so the caller can print it, once.
 */
export async function bootstrapApiKeys(store: Store, configuredKey: string | undefined, now: number): Promise<BootstrapOutcome> {
  if (configuredKey !== undefined) {
    if (await store.findApiKeyByHash(hashApiKey(configuredKey))) return { kind: 'configured-key-present' };
    await createApiKey(store, { key: configuredKey, label: 'TWOFA_BOOTSTRAP_API_KEY', now });
    return { kind: 'configured-key-created' };
  }
  if ((await store.countActiveApiKeys()) > 0) return { kind: 'keys-present' };
  const created = await createApiKey(store, { label: 'first start', now });
  return { kind: 'first-key-created', key: created.key };
}
