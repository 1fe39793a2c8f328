// The `twofa` command line as an operator uses it: keys, migrate, help, configuration errors, and a
// key revoked from the command line being refused at once by a running server sharing the database.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createJsonClient } from '../support/json-client.js';
import { runCli, startServerProcess, TEST_SECRET, type ServerProcess } from '../support/server-process.js';

const tempDirs: string[] = [];
function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-cli-'));
  tempDirs.push(dir);
  return dir;
}

after(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('twofa keys, against a running server sharing the SQLite file', () => {
  let server: ServerProcess;
  let env: Record<string, string>;

  before(async () => {
    const dataDir = tempDataDir();
    server = await startServerProcess({ TWOFA_DATA_DIR: dataDir });
    env = { TWOFA_DATA_DIR: dataDir };
  });
  after(async () => {
    if (server) assert.equal(await server.stop(), 0);
  });

  it('rotates the Twilio Auth Token: the old one stays a login for TWOFA_TWILIO_AUTH_TOKEN_GRACE, then for none', async () => {
    assert.equal((await runCli(['keys', 'create', '--account', 'tokens', '--json'], env)).code, 0);
    // The server process runs under the tests' TWOFA_SECRET, which seals the token: the command needs it too.
    const sealed = { ...env, TWOFA_SECRET: TEST_SECRET };
    const shown = await runCli(['keys', 'auth-token', '--account', 'tokens', '--json'], sealed);
    assert.equal(shown.code, 0, shown.stderr);
    const first = JSON.parse(shown.stdout) as { accountSid: string; authToken: string };
    const status = async (token: string) => (await fetch(`${server.url}/v2/Services`, {
      headers: { authorization: `Basic ${Buffer.from(`${first.accountSid}:${token}`).toString('base64')}` },
    })).status;
    assert.equal(await status(first.authToken), 200);
    const rotate = async (grace?: string) => {
      const rotated = await runCli(['keys', 'auth-token', '--account', 'tokens', '--rotate', '--json'], grace === undefined ? sealed : { ...sealed, TWOFA_TWILIO_AUTH_TOKEN_GRACE: grace });
      assert.equal(rotated.code, 0, rotated.stderr);
      return JSON.parse(rotated.stdout) as { authToken: string };
    };
    const graced = await rotate('1h');
    assert.equal(await status(first.authToken), 200, 'the replaced token within the grace');
    assert.equal(await status(graced.authToken), 200);
    const immediate = await rotate();
    assert.equal(await status(graced.authToken), 401, 'no grace: the replaced token stops at once');
    assert.equal(await status(first.authToken), 401, 'a second rotation ends the first one\'s grace');
    assert.equal(await status(immediate.authToken), 200);
  });

  it('creates a key with the scopes given, 2fa:pin:approve among them', async () => {
    const created = await runCli(['keys', 'create', '--account', 'acme', '--scopes', '2fa:pin:send,2fa:pin:approve', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    assert.deepEqual((JSON.parse(created.stdout) as { scopes: string[] }).scopes, ['2fa:pin:send', '2fa:pin:approve']);
  });

  it('creates a key (printed once as JSON), lists it without the key, revokes it, and the server refuses it from then on', async () => {
    const created = await runCli(['keys', 'create', '--account', 'acme', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const body = JSON.parse(created.stdout) as { key: string; id: string; account: string; scopes: string[] };
    assert.equal(typeof body.key, 'string');
    assert.ok(body.key.length >= 32, `a long random key: ${body.key.length} characters`);
    assert.equal(typeof body.id, 'string');
    assert.equal(body.account, 'acme');
    assert.deepEqual([...body.scopes].sort(), ['2fa:manage', '2fa:pin:send']);

    const listed = await runCli(['keys', 'list', '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    const keys = JSON.parse(listed.stdout) as { id: string; prefix: string; account: string; revokedAt: number | null }[];
    const entry = keys.find((k) => k.id === body.id);
    assert.ok(entry, 'the new key is listed');
    assert.equal(entry.account, 'acme');
    assert.equal(entry.revokedAt, null);
    assert.ok(body.key.startsWith(entry.prefix) && entry.prefix.length < body.key.length, 'only a prefix is shown');
    assert.ok(!listed.stdout.includes(body.key), 'keys list never prints a key');
    assert.ok(keys.some((k) => k.account === 'default'), 'the bootstrap key of the server is listed too');
    const plain = await runCli(['keys', 'list'], env);
    assert.equal(plain.code, 0);
    assert.match(plain.stdout, new RegExp(`${body.id}.*account=acme.*active`));
    assert.ok(!plain.stdout.includes(body.key));

    // The running server accepts the key created by another process, in its own account only.
    const acme = createJsonClient(server.url, body.key);
    const app = await acme.post('/2fa/2/applications', { name: 'acme app' });
    assert.equal(app.status, 200, app.text);
    assert.equal((await acme.get(`/2fa/2/applications/${app.body.applicationId}`)).status, 200);
    assert.equal((await createJsonClient(server.url, server.key).get(`/2fa/2/applications/${app.body.applicationId}`)).status, 404, 'another account sees a 404');

    // The account's SID, listed beside the key, is the user name of the Twilio Verify API (/v2), the key its password.
    const listedSid = (entry as unknown as { accountSid: string }).accountSid;
    assert.match(listedSid, /^AC[0-9a-f]{32}$/);
    assert.equal((body as unknown as { accountSid: string }).accountSid, listedSid);
    assert.match(plain.stdout, new RegExp(`account=acme \\(${listedSid}\\)`));
    assert.equal((await acme.get('/api/v1/me')).body.accountSid, listedSid);
    const services = await fetch(`${server.url}/v2/Services`, { headers: { authorization: `Basic ${Buffer.from(`${listedSid}:${body.key}`).toString('base64')}` } });
    assert.equal(services.status, 200);
    assert.deepEqual((await services.json() as { services: Array<{ friendly_name: string }> }).services.map((svc) => svc.friendly_name), ['acme app']);
    // And the key's own SID, listed too, with the key (as Twilio takes an API key SID with its secret).
    const keySid = (entry as unknown as { sid: string }).sid;
    assert.match(keySid, /^SK[0-9a-f]{32}$/);
    assert.equal((await acme.get('/api/v1/me')).body.apiKeySid, keySid);
    assert.equal((await fetch(`${server.url}/v2/Services`, { headers: { authorization: `Basic ${Buffer.from(`${keySid}:${body.key}`).toString('base64')}` } })).status, 200);

    const revoked = await runCli(['keys', 'revoke', body.id], env);
    assert.equal(revoked.code, 0, revoked.stderr);
    const refused = await acme.get('/2fa/2/applications');
    assert.equal(refused.status, 401);
    assert.equal(refused.body.requestError.serviceException.messageId, 'UNAUTHORIZED');
    const bearer = await acme.get('/2fa/2/applications', { headers: { authorization: `Bearer ${body.key}` } });
    assert.equal(bearer.status, 401);
    assert.equal((await createJsonClient(server.url, server.key).get('/2fa/2/applications')).status, 200, 'other keys still work');

    const relisted = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as { id: string; revokedAt: number | null }[];
    assert.equal(typeof relisted.find((k) => k.id === body.id)?.revokedAt, 'number');
    const again = await runCli(['keys', 'revoke', body.id], env);
    assert.equal(again.code, 1, 'revoking a revoked key fails');
    assert.match(again.stderr, new RegExp(body.id));
  });

  it('a key with only 2fa:pin:send is refused (403) on management operations', async () => {
    const created = await runCli(['keys', 'create', '--account', 'acme', '--scopes', '2fa:pin:send', '--label', 'backend', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const body = JSON.parse(created.stdout) as { key: string; scopes: string[] };
    assert.deepEqual(body.scopes, ['2fa:pin:send']);
    const response = await createJsonClient(server.url, body.key).post('/2fa/2/applications', { name: 'nope' });
    assert.equal(response.status, 403);
  });

  it('refuses an unknown scope as bad usage (exit 2)', async () => {
    const result = await runCli(['keys', 'create', '--scopes', '2fa:everything', '--json'], env);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown scope 2fa:everything/);
    assert.equal(result.stdout, '');
  });
});

describe('twofa migrate, help and configuration errors', () => {
  it('migrate --json applies the schema once, then has nothing to do', async () => {
    const dataDir = tempDataDir();
    const first = await runCli(['migrate', '--json'], { TWOFA_DATA_DIR: dataDir });
    assert.equal(first.code, 0, first.stderr);
    const applied = (JSON.parse(first.stdout) as { applied: string[] }).applied;
    assert.ok(applied.length > 0, `migrations applied: ${first.stdout}`);
    assert.ok(fs.existsSync(path.join(dataDir, 'twofa.db')));
    const second = await runCli(['migrate', '--json'], { TWOFA_DATA_DIR: dataDir });
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(JSON.parse(second.stdout), { applied: [] });
  });

  it('--help exits 0 and lists the commands', async () => {
    const result = await runCli(['--help'], {});
    assert.equal(result.code, 0);
    for (const command of ['serve', 'migrate', 'keys', 'inbox']) assert.match(result.stdout, new RegExp(`\\b${command}\\b`));
  });

  it('serve with TWOFA_PORT=abc exits 2 with a message naming TWOFA_PORT', async () => {
    const result = await runCli(['serve'], { TWOFA_DATA_DIR: tempDataDir(), TWOFA_PORT: 'abc' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /TWOFA_PORT/);
    assert.doesNotMatch(result.stdout, /twofa is listening/);
  });

  it('an unknown command is bad usage (exit 2)', async () => {
    const result = await runCli(['no-such-command'], {});
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown command/);
  });
});
