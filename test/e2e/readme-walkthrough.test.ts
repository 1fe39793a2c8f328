// The README's "Five-minute walkthrough" works as written: its shell blocks run, in one bash process,
// against a real `twofa serve` started the way the first block starts it (same key), on a free port.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { README, runProcess, sectionBlocks } from '../support/readme.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

const walkthroughBlocks = (markdown: string) => sectionBlocks(markdown, /^## Five-minute walkthrough/);
const runBash = (script: string, cwd: string, timeoutMs: number) => runProcess('bash', ['-c', script], { cwd, timeoutMs });

const MARK = '::walkthrough-block::';

describe('README five-minute walkthrough', () => {
  const blocks = walkthroughBlocks(README);
  let server: ServerProcess | undefined;
  let workDir: string;
  let result: { code: number | null; stdout: string; stderr: string };
  let outputs: string[] = [];

  before(async () => {
    const first = blocks[0] ?? '';
    const key = /TWOFA_BOOTSTRAP_API_KEY=(\S+)/.exec(first)?.[1];
    if (!key) throw new Error(`the first walkthrough block sets no TWOFA_BOOTSTRAP_API_KEY:\n${first}`);
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-walkthrough-'));
    server = await startServerProcess({ TWOFA_BOOTSTRAP_API_KEY: key, TWOFA_DATA_DIR: path.join(workDir, 'data') });

    // The first block's exports, pointed at this server instead of the default port.
    const exports = first.split('\n').filter((l) => /^export /.test(l)).map((l) => l.replace(/http:\/\/127\.0\.0\.1:8080/g, server!.url));
    const script = [
      'set -euo pipefail',
      ...exports,
      ...blocks.slice(1).flatMap((block) => [`echo '${MARK}'`, block]),
    ].join('\n');
    result = await runBash(script, workDir, 30_000);
    outputs = result.stdout.split(`${MARK}\n`).slice(1);
  });

  after(async () => {
    if (server) await server.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('has the blocks it describes: start the server, then six steps', () => {
    assert.equal(blocks.length, 7, `found ${blocks.length} sh blocks`);
    assert.match(blocks[0] ?? '', /TWOFA_BOOTSTRAP_API_KEY=walkthrough-key-0123456789abcdefghij npm start &/);
    assert.match(blocks[0] ?? '', /^export TWOFA=http:\/\/127\.0\.0\.1:8080 AUTH="Authorization: App walkthrough-key-0123456789abcdefghij"$/m);
  });

  it('runs every step without an error', () => {
    assert.equal(result.code, 0, `bash exited ${result.code}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`);
    assert.equal(outputs.length, blocks.length - 1);
  });

  it('creates an application whose id is printed', () => {
    assert.match(outputs[0] ?? '', /^[0-9A-F]{32}\s*$/, `step 1 printed ${JSON.stringify(outputs[0])}`);
  });

  it('shows the PIN in the inbox, rejects the wrong PIN and verifies the right one', () => {
    assert.match(outputs[3] ?? '', /"text":"Hello Ann, your code is \d{6}"/, `inbox step printed ${outputs[3]}`);
    const verify = outputs[4] ?? '';
    assert.match(verify, /"verified":false/);
    assert.match(verify, /"pinError":"WRONG_PIN"/);
    assert.match(verify, /"verified":true/);
    assert.match(verify, /"msisdn":"41793026727","verified":true,"attemptsRemaining":3/, 'the answer the README shows');
    assert.match(result.stdout, /"verified":true/);
  });

  it('reports the verification status as verified', () => {
    const status = outputs[5] ?? '';
    assert.match(status, /^\{"verifications":\[/);
    assert.match(status, /"verified":true/);
  });
});
