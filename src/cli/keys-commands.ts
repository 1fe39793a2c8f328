import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig } from '../config.js';
import { OperationFailedError } from './cli-errors.js';
import { ALL_SCOPES, createApiKey, DEFAULT_SCOPES } from '../service/api-keys.js';
import { accountSid, apiKeySid } from '../domain/twilio-sids.js';
import type { KyselyStore } from '../store/kysely-store.js';
import { withAuditStore } from './audit-command.js';

async function withStore<T>(work: (store: KyselyStore) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // Loaded on use: the store's modules are slow to load and most commands never open the database.
  const { openStore, postgresOptions } = await import('../store/open-store.js');
  const store = await openStore(config.databaseUrl, { postgres: postgresOptions(config) });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

function parseScopes(value: string): string[] {
  const scopes = value.split(/[,\s]+/).filter((s) => s.length > 0);
  for (const scope of scopes) {
    if (!(ALL_SCOPES as readonly string[]).includes(scope)) throw new InvalidArgumentError(`unknown scope ${scope}; known scopes: ${ALL_SCOPES.join(', ')}`);
  }
  return scopes;
}

export function registerKeysCommands(program: Command): void {
  const keys = program.command('keys')
    .description('Manage API keys in the database TWOFA_DATABASE_URL names (stored as SHA-256; a key is shown only when created)')
    .addHelpText('after', `
Examples:
  $ export TWOFA_API_KEY=$(twofa keys create --label laptop)
  $ twofa keys create --account acme --scopes 2fa:pin:send --label backend --json
  $ twofa keys list
  $ twofa keys revoke 6f1c2b9e-4d3a-4b8e-9a51-0c7d2e8f4a13
  $ twofa keys auth-token --account acme`);

  keys.command('create')
    .description('Create an API key and print it once')
    .option('--account <name>', 'account the key belongs to (created if it does not exist)', 'default')
    .option('--scopes <list>', `comma-separated scopes (${ALL_SCOPES.join(', ')}; 2fa:manage holds the others)`, parseScopes, [...DEFAULT_SCOPES])
    .option('--label <text>', 'a note to recognise the key by')
    .option('--json', 'print {key, id, account, accountSid, sid, scopes} as JSON')
    .addHelpText('after', '\nExamples:\n  $ export TWOFA_API_KEY=$(twofa keys create --label laptop)\n  $ twofa keys create --account acme --scopes 2fa:pin:send --json')
    .action(async (options: { account: string; scopes: string[]; label?: string; json?: boolean }) => {
      const scopes = options.scopes;
      const created = await withStore((store) => createApiKey(store, { accountName: options.account, scopes, label: options.label ?? null, now: Date.now() }));
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ key: created.key, id: created.record.id, account: created.record.accountName, accountSid: accountSid(created.record.accountId), sid: apiKeySid(created.record.id), scopes: created.record.scopes })}\n`);
      } else {
        process.stdout.write(`${created.key}\n`);
        process.stderr.write(`created key ${created.record.id} in account ${created.record.accountName} with scopes ${scopes.join(' ')}; it is not shown again\n`);
      }
    });

  keys.command('list')
    .description('List API keys (prefix, account, scopes, state), never the keys themselves')
    .option('--json', 'print the keys (without the keys themselves) as JSON, each with its account\'s SID (the user name of the Twilio Verify API)')
    .addHelpText('after', '\nExample:\n  $ twofa keys list --json')
    .action(async (options: { json?: boolean }) => {
      const list = await withStore((store) => store.listApiKeys());
      if (options.json) {
        process.stdout.write(`${JSON.stringify(list.map((k) => ({ id: k.id, prefix: k.keyPrefix, account: k.accountName, accountSid: accountSid(k.accountId), sid: apiKeySid(k.id), scopes: k.scopes, label: k.label, createdAt: k.createdAt, revokedAt: k.revokedAt })))}\n`);
        return;
      }
      for (const k of list) {
        const state = k.revokedAt === null ? 'active' : `revoked ${new Date(k.revokedAt).toISOString()}`;
        process.stdout.write(`${k.id}  ${apiKeySid(k.id)}  ${k.keyPrefix}...  account=${k.accountName} (${accountSid(k.accountId)})  scopes=${k.scopes.join(',')}  ${state}${k.label ? `  (${k.label})` : ''}\n`);
      }
      if (list.length === 0) process.stderr.write('no API keys\n');
    });

  // By id only: a prefix is a few characters of the key, which several keys may share.
  keys.command('revoke')
    .description('Revoke an API key by its id')
    .argument('<id>', 'the id twofa keys list shows')
    .option('--json', 'print {"revoked": id} as JSON')
    .addHelpText('after', '\nExample:\n  $ twofa keys revoke 6f1c2b9e-4d3a-4b8e-9a51-0c7d2e8f4a13')
    .action(async (id: string, options: { json?: boolean }) => {
      const outcome = await withStore(async (store) => {
        if (await store.revokeApiKey(id, Date.now())) return { revoked: true as const };
        return { revoked: false as const, sharingPrefix: (await store.listApiKeys()).filter((k) => k.keyPrefix === id && k.revokedAt === null).map((k) => k.id) };
      });
      if (!outcome.revoked) {
        const hint = outcome.sharingPrefix.length > 0 ? `; ${id} is the prefix of ${outcome.sharingPrefix.length} active key(s): revoke one by its id (${outcome.sharingPrefix.join(', ')})` : '; twofa keys list shows the ids';
        throw new OperationFailedError(`no active API key has the id ${id}${hint}`);
      }
      if (options.json) process.stdout.write(`${JSON.stringify({ revoked: id })}\n`);
      else process.stdout.write(`revoked ${id}\n`);
    });

  // The Auth Token signs the account's Twilio Verify webhook events (X-Twilio-Signature); it is
  // stored encrypted with TWOFA_SECRET, which this command therefore needs.
  keys.command('auth-token')
    .description('Print an account\'s Twilio Auth Token (made if it has none), which signs its Twilio Verify webhook events; --rotate replaces it')
    .option('--account <name>', 'the account', 'default')
    .option('--rotate', 'replace the token: events are signed with the new one from now on; the old one stays a login for TWOFA_TWILIO_AUTH_TOKEN_GRACE')
    .option('--json', 'print {account, accountSid, authToken} as JSON')
    .addHelpText('after', '\nExamples:\n  $ twofa keys auth-token --account acme\n  $ twofa keys auth-token --account acme --rotate --json')
    .action(async (options: { account: string; rotate?: boolean; json?: boolean }) => {
      const { authToken, rotateAuthToken } = await import('../service/twilio-webhooks.js');
      const config = loadConfig();
      const found = await withAuditStore(config, async (store, keyring) => {
        const key = (await store.listApiKeys()).find((k) => k.accountName === options.account);
        if (key === undefined) return undefined;
        const ctx = { store, keyring, clock: Date.now };
        return { accountId: key.accountId, token: options.rotate ? await rotateAuthToken(ctx, key.accountId, config.twilioAuthTokenGraceMs) : await authToken(ctx, key.accountId) };
      });
      if (found === undefined) throw new OperationFailedError(`no account is named ${options.account}; twofa keys list shows the accounts`);
      if (options.json) process.stdout.write(`${JSON.stringify({ account: options.account, accountSid: accountSid(found.accountId), authToken: found.token })}\n`);
      else process.stdout.write(`${found.token}\n`);
    });
}
