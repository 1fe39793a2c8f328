// docs/twilio-verify.md's Walkthrough works as written: its shell blocks run in one bash process after
// the exports of the README's five-minute walkthrough (the page continues that walkthrough), against a
// real `twofa serve` on a free port; then its Node SDK block runs with Twilio's SDK from node_modules.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { README, TWILIO_DOC, runProcess, sectionBlocks } from '../support/readme.js';
import { PROJECT_ROOT, startServerProcess, type ServerProcess } from '../support/server-process.js';

const MARK = '::twilio-block::';

describe('docs/twilio-verify.md walkthrough', () => {
  const setup = sectionBlocks(README, /^## Five-minute walkthrough/)[0] ?? '';
  const blocks = sectionBlocks(TWILIO_DOC, /^## Walkthrough$/);
  const [sdkBlock] = sectionBlocks(TWILIO_DOC, /^## Walkthrough$/, 'js');
  let server: ServerProcess | undefined;
  let workDir: string;
  let shell: { code: number | null; stdout: string; stderr: string };
  let outputs: string[] = [];
  let sdk: { code: number | null; stdout: string; stderr: string };

  before(async () => {
    const key = /TWOFA_BOOTSTRAP_API_KEY=(\S+)/.exec(setup)?.[1];
    if (!key) throw new Error('the walkthrough\'s first block sets no TWOFA_BOOTSTRAP_API_KEY');
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-twilio-walkthrough-'));
    server = await startServerProcess({ TWOFA_BOOTSTRAP_API_KEY: key, TWOFA_DATA_DIR: path.join(workDir, 'data') });
    const exports = setup.split('\n').filter((l) => /^export /.test(l)).map((l) => l.replace(/http:\/\/127\.0\.0\.1:8080/g, server!.url));
    const script = ['set -euo pipefail', ...exports, ...blocks.flatMap((block) => [`echo '${MARK}'`, block]), `echo '${MARK}'`, 'echo "$ACCOUNT_SID $SERVICE_SID $AUTH_TOKEN"'].join('\n');
    shell = await runProcess('bash', ['-c', script], { cwd: workDir, timeoutMs: 30_000 });
    outputs = shell.stdout.split(`${MARK}\n`).slice(1);
    const [accountSid, serviceSid, authToken] = (outputs.at(-1) ?? '').trim().split(' ');
    // Bare imports of an evaluated module resolve from the working directory: the project's node_modules.
    sdk = await runProcess(process.execPath, ['--input-type=module', '-e', sdkBlock ?? ''], {
      cwd: PROJECT_ROOT, timeoutMs: 30_000,
      env: { TWOFA: server.url, ACCOUNT_SID: accountSid ?? '', AUTH_TOKEN: authToken ?? '', TWOFA_API_KEY: key, SERVICE_SID: serviceSid ?? '' },
    });
  });

  after(async () => {
    if (server) await server.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('has the four shell steps and one Node SDK block', () => {
    assert.equal(blocks.length, 4, `found ${blocks.length} sh blocks`);
    assert.ok(sdkBlock?.includes("client.verify.baseUrl = process.env.TWOFA"));
  });

  it('runs every shell step without an error: a Service, a pending verification, then approved', () => {
    assert.equal(shell.code, 0, `bash exited ${shell.code}\n--- stdout ---\n${shell.stdout}\n--- stderr ---\n${shell.stderr}`);
    assert.match(outputs[1] ?? '', /^VA[0-9a-f]{32}\s*$/, `step 2 printed ${JSON.stringify(outputs[1])}`);
    assert.match(outputs[2] ?? '', /"to":"\+41793026728","channel":"sms","status":"pending"/);
    assert.match(outputs[3] ?? '', /"status":"approved","valid":true/);
  });

  it('runs the Node SDK block against the same server: started pending, then approved', () => {
    assert.equal(sdk.code, 0, `node exited ${sdk.code}\n--- stdout ---\n${sdk.stdout}\n--- stderr ---\n${sdk.stderr}`);
    assert.match(sdk.stdout, /^VE[0-9a-f]{32} pending\napproved true\n$/);
  });
});
