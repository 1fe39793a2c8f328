// `twofa vonage-apps set-key | show | remove` against a running server: the key it registers lets
// Vonage's SDK log in with a JWT of the private half, and after `remove` it no longer does; and
// `set-callback | rotate-secret | list`: the callback URL and the signature secret, printed once.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Auth } from '@vonage/auth';
import { Vonage } from '@vonage/server-sdk';
import { freshPhone } from '../support/http-assertions.js';
import { runCli, startServerProcess, type ServerProcess } from '../support/server-process.js';

describe('twofa vonage-apps', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-vonage-apps-'));
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicKeyFile = path.join(dir, 'public.key');
  const privateKey = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  let server: ServerProcess;
  let env: Record<string, string>;
  let applicationId: string;

  const start = () => new Vonage(new Auth({ applicationId, privateKey }), { apiHost: server.url }).verify2
    .newRequest({ brand: 'Acme', workflow: [{ channel: 'sms', to: freshPhone() }] } as never);

  before(async () => {
    fs.writeFileSync(publicKeyFile, keys.publicKey.export({ type: 'spki', format: 'pem' }).toString());
    // A callback URL on loopback needs the operator's opt-in to private addresses.
    server = await startServerProcess({ TWOFA_DATA_DIR: path.join(dir, 'data'), TWOFA_WEBHOOK_ALLOW_PRIVATE: 'true' });
    env = { TWOFA_API_KEY: server.key };
    const created = await fetch(`${server.url}/2fa/2/applications`, { method: 'POST', headers: { authorization: `App ${server.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Acme' }) });
    applicationId = ((await created.json()) as { applicationId: string }).applicationId;
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('registers the key, shows it, and the SDK\'s JWTs log in until it is removed', async () => {
    const set = await runCli(['vonage-apps', 'set-key', applicationId, publicKeyFile, '--url', server.url, '--json'], env);
    assert.equal(set.code, 0, set.stderr);
    assert.equal((JSON.parse(set.stdout) as { applicationId: string }).applicationId, applicationId);
    const shown = await runCli(['vonage-apps', 'show', applicationId, '--url', server.url], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.stdout.trim(), fs.readFileSync(publicKeyFile, 'utf8').trim());
    assert.match((await start()).requestId, /^[0-9a-f-]{36}$/);

    const removed = await runCli(['vonage-apps', 'remove', applicationId, '--url', server.url], env);
    assert.equal(removed.code, 0, removed.stderr);
    await assert.rejects(start(), /status code 401/);
    const again = await runCli(['vonage-apps', 'show', applicationId, '--url', server.url], env);
    assert.notEqual(again.code, 0, 'no key left to show');
  });

  it('sets the callback URL (printing the new signature secret once), rotates the secret, lists, and removes the URL', async () => {
    assert.equal((await runCli(['vonage-apps', 'set-key', applicationId, publicKeyFile, '--url', server.url], env)).code, 0);
    const set = await runCli(['vonage-apps', 'set-callback', applicationId, 'http://127.0.0.1:9/vonage', '--url', server.url], env);
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /sends its callbacks to http:\/\/127\.0\.0\.1:9\/vonage/);
    const first = /shown only this once\): (\S+)/.exec(set.stdout)?.[1];
    assert.ok(first && first.length >= 32);
    const rotated = await runCli(['vonage-apps', 'rotate-secret', applicationId, '--url', server.url, '--json'], env);
    assert.equal(rotated.code, 0, rotated.stderr);
    const second = (JSON.parse(rotated.stdout) as { signatureSecret: string }).signatureSecret;
    assert.ok(second.length >= 32 && second !== first);
    const listed = await runCli(['vonage-apps', 'list', '--url', server.url], env);
    assert.match(listed.stdout, new RegExp(`${applicationId}  callbacks: http://127\\.0\\.0\\.1:9/vonage`));
    const removed = await runCli(['vonage-apps', 'set-callback', applicationId, '', '--url', server.url], env);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /sends no callbacks/);
  });

  it('refuses a file that is not there, before calling the server', async () => {
    const missing = await runCli(['vonage-apps', 'set-key', applicationId, path.join(dir, 'nope.key'), '--url', server.url], env);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /no such file/);
  });
});
