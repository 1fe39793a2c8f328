// Use cases of the console's sign-in and API keys page. A key sees and manages only its own
// account's keys; a new key is shown once, in the answer that creates it.
import { fail, ok, type Result } from '../domain/errors.js';
import type { AccountApiKey } from '../store/console-store.js';
import { createApiKey } from './api-keys.js';
import type { Principal, ServiceContext } from './context.js';

export interface Me {
  accountName: string;
  key: AccountApiKey;
}

function keyNotFound(id: string) {
  return fail('API_KEY_NOT_FOUND', `API key ${id} not found`);
}

/** Who the caller is: the account's name and the key's own record (its scopes above all). */
export async function whoAmI(ctx: ServiceContext, principal: Principal): Promise<Result<Me>> {
  const key = await ctx.store.console.getApiKey(principal.accountId, principal.keyId);
  if (!key) return keyNotFound(principal.keyId);
  return ok({ accountName: key.accountName, key });
}

export async function listAccountKeys(ctx: ServiceContext, principal: Principal): Promise<AccountApiKey[]> {
  return ctx.store.console.listApiKeys(principal.accountId);
}

export async function createAccountKey(ctx: ServiceContext, principal: Principal, input: { label?: string | null; scopes: string[] }): Promise<Result<{ key: string; record: AccountApiKey }>> {
  const accountName = await ctx.store.console.accountName(principal.accountId);
  if (accountName === undefined) return fail('ACCOUNT_NOT_FOUND', 'The account of this API key no longer exists');
  const label = input.label?.trim() ? input.label.trim() : null;
  const created = await createApiKey(ctx.store, { accountName, scopes: [...new Set(input.scopes)], label, now: ctx.clock() });
  const { record } = created;
  return ok({
    key: created.key,
    record: { id: record.id, accountName, keyPrefix: record.keyPrefix, scopes: record.scopes, label: record.label, createdAt: record.createdAt, revokedAt: null },
  });
}

/** Revoking is idempotent; the key making the request cannot revoke itself (the console would lock its operator out mid-session). */
export async function revokeAccountKey(ctx: ServiceContext, principal: Principal, keyId: string): Promise<Result<void>> {
  if (keyId === principal.keyId) return fail('API_KEY_SELF_REVOKE', 'An API key cannot revoke itself: sign in with another key of the account to revoke this one');
  const outcome = await ctx.store.console.revokeApiKey(principal.accountId, keyId, ctx.clock());
  if (outcome === 'missing') return keyNotFound(keyId);
  return ok(undefined);
}
