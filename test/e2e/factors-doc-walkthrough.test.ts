// docs/factors.md's TOTP walkthrough works as written: its shell blocks run in one bash process after
// the README's exports and the first two steps of docs/twilio-verify.md's walkthrough (the page
// continues from there: $TWILIO and $SERVICE_SID), against a real `twofa serve` on a free port and
// on the wall clock (its step 4 waits for the next code, as a user would).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { README, runMarkedBlocks, sectionBlocks, TWILIO_DOC } from '../support/readme.js';

const FACTORS_DOC = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'factors.md'), 'utf8');

describe('docs/factors.md TOTP walkthrough', { timeout: 120_000 }, () => {
  let server: ServerProcess;
  let workDir: string;
  const blocks = sectionBlocks(FACTORS_DOC, /^## TOTP walkthrough$/);
  let shell: { code: number | null; stdout: string; stderr: string };
  let outputs: string[];

  before(async () => {
    const setup = sectionBlocks(README, /^## Five-minute walkthrough/)[0] ?? '';
    const key = /TWOFA_BOOTSTRAP_API_KEY=(\S+)/.exec(setup)?.[1];
    assert.ok(key, 'the README sets TWOFA_BOOTSTRAP_API_KEY');
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-factors-walkthrough-'));
    server = await startServerProcess({ TWOFA_BOOTSTRAP_API_KEY: key, TWOFA_DATA_DIR: path.join(workDir, 'data') });
    const exports = setup.split('\n').filter((l) => /^export /.test(l)).map((l) => l.replace(/http:\/\/127\.0\.0\.1:8080/g, server.url));
    const twilioSteps = sectionBlocks(TWILIO_DOC, /^## Walkthrough$/).slice(0, 2);
    ({ shell, outputs } = await runMarkedBlocks([...exports, ...twilioSteps], blocks, { cwd: workDir, timeoutMs: 90_000 }));
  });
  after(async () => {
    await server?.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('has the four shell steps', () => {
    assert.equal(blocks.length, 4, `found ${blocks.length} sh blocks`);
  });

  it('names the issuer, makes a factor with its otpauth:// URI, verifies it with a code, and signs in with the next one', () => {
    assert.equal(shell.code, 0, `bash exited ${shell.code}\n--- stdout ---\n${shell.stdout}\n--- stderr ---\n${shell.stderr}`);
    assert.match(outputs[0] ?? '', /"totp":\{"issuer":"My App"/);
    assert.match(outputs[1] ?? '', /"uri":"otpauth:\/\/totp\/My%20App:ann%40example.com\?secret=[A-Z2-7]{32}&issuer=My%20App&algorithm=SHA1&digits=6&period=30"/);
    assert.match(outputs[2] ?? '', /"status":"verified"/);
    assert.match(outputs[3] ?? '', /"status":"approved"/);
  });
});
