// `twofa routes explain | list | reload` against a running server whose routes live in its config
// file, and SIGHUP: a changed file is read again without a restart, an invalid one refused whole.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, startServerProcess, type ServerProcess } from '../support/server-process.js';

describe('twofa routes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-routes-cli-'));
  const configFile = path.join(dir, 'twofa.config.json');
  let server: ServerProcess;
  let env: Record<string, string>;

  const writeRoutes = (routes: unknown) => fs.writeFileSync(configFile, JSON.stringify({
    // Two named transports that need no peer: the local inbox, under two names.
    transports: { primary: 'log://', backup: 'log://' },
    routes,
  }));
  const india = { name: 'india', channel: 'sms', countries: ['IN'], transports: ['primary', 'backup'], sender: { id: 'ACMEIN', kind: 'alphanumeric' }, regulatory: { dltEntityId: '1101234567890123456', dltTemplateId: '1107123456789012345' } };

  before(async () => {
    writeRoutes([india]);
    server = await startServerProcess({ TWOFA_DATA_DIR: path.join(dir, 'data'), TWOFA_CONFIG: configFile });
    env = { TWOFA_API_KEY: server.key };
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('explains a number: the rule and why, the transports in order, the sender and the DLT ids', async () => {
    const explained = await runCli(['routes', 'explain', '+919876543210', '--url', server.url], env);
    assert.equal(explained.code, 0, explained.stderr);
    assert.match(explained.stdout, /rule: #0 \(india\), matched by country IN/);
    assert.match(explained.stdout, /1\. primary \(no price\)\n\s+2\. backup \(no price\)/);
    assert.match(explained.stdout, /sender: ACMEIN \(alphanumeric\) from route/);
    assert.match(explained.stdout, /regulatory: dltEntityId=1101234567890123456 dltTemplateId=1107123456789012345/);
    const other = await runCli(['routes', 'explain', '4915123456789', '--url', server.url, '--json'], env);
    assert.equal(other.code, 0, other.stderr);
    assert.equal((JSON.parse(other.stdout) as { rule: unknown }).rule, null, 'no rule for DE: the channel\'s own DSN');
  });

  it('reloads on SIGHUP and on `twofa routes reload`; an invalid table is refused whole', async () => {
    writeRoutes([{ ...india, name: 'india-backup-first', transports: ['backup', 'primary'] }]);
    process.kill(server.pid, 'SIGHUP');
    const deadline = Date.now() + 10_000;
    let listed = '';
    while (Date.now() < deadline && !listed.includes('india-backup-first')) {
      listed = (await runCli(['routes', 'list', '--url', server.url], env)).stdout;
    }
    assert.match(listed, /india-backup-first\s+sms\s+IN\s+backup > primary/);

    writeRoutes([{ channel: 'sms', countries: ['IN'], transports: ['nowhere'] }]);
    const refused = await runCli(['routes', 'reload', '--url', server.url], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /routes\[0\]\.transports\[0\]: unknown transport "nowhere"/);
    const still = await runCli(['routes', 'list', '--url', server.url], env);
    assert.match(still.stdout, /india-backup-first/, 'the table before stays in force');

    writeRoutes([india]);
    const reloaded = await runCli(['routes', 'reload', '--url', server.url], env);
    assert.equal(reloaded.code, 0, reloaded.stderr);
    assert.match(reloaded.stdout, /routes reloaded: 1 rule in force/);
  });
});
