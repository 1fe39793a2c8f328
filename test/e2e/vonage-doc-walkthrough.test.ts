// docs/vonage-verify.md's Walkthrough works as written: its shell blocks run in one bash process after
// the exports of the README's five-minute walkthrough (the page continues that walkthrough), against a
// real `twofa serve` on a free port; then its Node SDK block runs with Vonage's SDK from node_modules,
// signing with the key pair the shell steps made and registered.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runDocWalkthrough, VONAGE_DOC, type DocWalkthrough } from '../support/readme.js';

describe('docs/vonage-verify.md walkthrough', () => {
  let run: DocWalkthrough;

  before(async () => {
    run = await runDocWalkthrough(VONAGE_DOC, {
      // The shell steps' working directory, where they left the private key.
      finalEcho: 'pwd',
      sdkEnv: (outputs, server, key) => ({
        TWOFA: server, TWOFA_API_KEY: key,
        VONAGE_APPLICATION_ID: (JSON.parse(outputs[0] ?? '{}') as { applicationId?: string }).applicationId ?? '',
        VONAGE_PRIVATE_KEY: path.join((outputs[3] ?? '').trim(), 'private.key'),
      }),
    });
  });
  after(async () => { await run?.stop(); });

  it('has the three shell steps and one Node SDK block', () => {
    assert.equal(run.blocks.length, 3, `found ${run.blocks.length} sh blocks`);
    assert.ok(run.sdkBlock?.includes('apiHost: process.env.TWOFA'));
  });

  it('runs every shell step without an error: the key registered, a verification started, then completed', () => {
    const { shell, outputs } = run;
    assert.equal(shell.code, 0, `bash exited ${shell.code}\n--- stdout ---\n${shell.stdout}\n--- stderr ---\n${shell.stderr}`);
    const registered = JSON.parse(outputs[0] ?? '');
    assert.match(registered.applicationId, /^[0-9A-F]{32}$/);
    assert.match(registered.publicKey, /^-----BEGIN PUBLIC KEY-----/);
    const requestId = (JSON.parse(outputs[1] ?? '') as { request_id: string }).request_id;
    assert.match(requestId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.deepEqual(JSON.parse(outputs[2] ?? ''), { request_id: requestId, status: 'completed' });
  });

  it('runs the Node SDK block against the same server with a JWT of the registered key: started, then completed', () => {
    const { sdk } = run;
    assert.equal(sdk.code, 0, `node exited ${sdk.code}\n--- stdout ---\n${sdk.stdout}\n--- stderr ---\n${sdk.stderr}`);
    assert.equal(sdk.stdout, '36\ncompleted\n');
  });
});
