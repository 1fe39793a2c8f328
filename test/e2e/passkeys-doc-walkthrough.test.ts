// docs/factors.md's passkeys walkthrough works as written: its shell blocks run in one bash process
// after the README's exports and the first two steps of docs/twilio-verify.md's walkthrough, against
// a real `twofa serve`; between them a software authenticator (test/support/soft-authenticator-cli.ts)
// does what the page's navigator.credentials does, on the walkthrough's origin. (In a browser:
// test/console/passkeys.test.ts.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { README, runMarkedBlocks, sectionBlocks, TWILIO_DOC } from '../support/readme.js';

const FACTORS_DOC = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'factors.md'), 'utf8');
// tsx resolved here: the walkthrough runs in a folder of its own, with no node_modules.
const AUTHENTICATOR = `${process.execPath} --import ${import.meta.resolve('tsx')} ${path.join(PROJECT_ROOT, 'test', 'support', 'soft-authenticator-cli.ts')}`;

describe('docs/factors.md passkeys walkthrough', { timeout: 120_000 }, () => {
  let server: ServerProcess;
  let workDir: string;
  const blocks = sectionBlocks(FACTORS_DOC, /^## Passkeys$/);
  let shell: { code: number | null; stdout: string; stderr: string };
  let outputs: string[];

  before(async () => {
    const setup = sectionBlocks(README, /^## Five-minute walkthrough/)[0] ?? '';
    const key = /TWOFA_BOOTSTRAP_API_KEY=(\S+)/.exec(setup)?.[1];
    assert.ok(key, 'the README sets TWOFA_BOOTSTRAP_API_KEY');
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-passkeys-walkthrough-'));
    server = await startServerProcess({ TWOFA_BOOTSTRAP_API_KEY: key, TWOFA_DATA_DIR: path.join(workDir, 'data') });
    const exports = setup.split('\n').filter((l) => /^export /.test(l)).map((l) => l.replace(/http:\/\/127\.0\.0\.1:8080/g, server.url));
    const twilioSteps = sectionBlocks(TWILIO_DOC, /^## Walkthrough$/).slice(0, 2);
    const origin = /Passkeys\.RelyingParty\.Origins=([^']+)'/.exec(blocks[0] ?? '')?.[1];
    assert.ok(origin, 'step 1 names the origin');
    // What the page does between the server's steps: after the factor is made, and after the challenge.
    const page: Record<number, string> = {
      1: `${AUTHENTICATOR} create passkey-factor.json ${origin} credential.json passkey.json`,
      3: `${AUTHENTICATOR} get passkey-challenge.json ${origin} passkey.json assertion.json`,
    };
    ({ shell, outputs } = await runMarkedBlocks([...exports, ...twilioSteps], blocks, { cwd: workDir, timeoutMs: 90_000, after: (i) => (page[i] ? [page[i]] : []) }));
  });
  after(async () => {
    await server?.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('has the five shell steps', () => {
    assert.equal(blocks.length, 5, `found ${blocks.length} sh blocks`);
  });

  it('names the relying party, makes a passkeys factor, verifies it with the attestation, and approves a challenge with an assertion', () => {
    assert.equal(shell.code, 0, `bash exited ${shell.code}\n--- stdout ---\n${shell.stdout}\n--- stderr ---\n${shell.stderr}`);
    assert.match(outputs[0] ?? '', /"passkeys":\{"relying_party":\{"id":"example.com","name":"Example","origins":\["https:\/\/app.example.com"\]\}/);
    assert.match(outputs[1] ?? '', /"status":"unverified","factor_type":"passkeys"/);
    assert.match(outputs[1] ?? '', /"options":\{"publicKey":\{"challenge":"[A-Za-z0-9_-]{43}","rp":\{"name":"Example","id":"example.com"\}/);
    assert.match(outputs[2] ?? '', /"status":"verified","factor_type":"passkeys"/);
    assert.match(outputs[3] ?? '', /"status":"pending"/);
    assert.match(outputs[4] ?? '', /"status":"approved"/);
  });
});
