// docs/prelude-verify.md's Walkthrough works as written: its shell blocks run in one bash process after
// the exports of the README's five-minute walkthrough (the page continues that walkthrough), against a
// real `twofa serve` on a free port; then its Node SDK block runs with Prelude's SDK from node_modules.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PRELUDE_DOC, runDocWalkthrough, type DocWalkthrough } from '../support/readme.js';

describe('docs/prelude-verify.md walkthrough', () => {
  let run: DocWalkthrough;

  before(async () => {
    run = await runDocWalkthrough(PRELUDE_DOC, { sdkEnv: (_outputs, server, key) => ({ TWOFA: server, TWOFA_API_KEY: key }) });
  });
  after(async () => { await run?.stop(); });

  it('has the three shell steps and one Node SDK block', () => {
    assert.equal(run.blocks.length, 3, `found ${run.blocks.length} sh blocks`);
    assert.ok(run.sdkBlock?.includes('baseURL: process.env.TWOFA'));
  });

  it('runs every shell step without an error: the application set, a verification created, then checked', () => {
    const { shell, outputs } = run;
    assert.equal(shell.code, 0, `bash exited ${shell.code}\n--- stdout ---\n${shell.stdout}\n--- stderr ---\n${shell.stderr}`);
    const settings = JSON.parse(outputs[0] ?? '');
    assert.match(settings.applicationId, /^[0-9A-F]{32}$/);
    assert.equal(settings.customCodeAllowed, false);
    const created = JSON.parse(outputs[1] ?? '');
    assert.match(created.id, /^vrf_[0-9a-z]{26}$/);
    assert.deepEqual({ ...created, id: 'vrf_', request_id: '' }, { id: 'vrf_', status: 'success', method: 'message', channels: ['sms'], metadata: { correlation_id: 'signup-1' }, request_id: '' });
    const checked = JSON.parse(outputs[2] ?? '');
    assert.deepEqual({ ...checked, request_id: '' }, { status: 'success', id: created.id, metadata: { correlation_id: 'signup-1' }, request_id: '' });
  });

  it('runs the Node SDK block against the same server: created, then checked', () => {
    const { sdk } = run;
    assert.equal(sdk.code, 0, `node exited ${sdk.code}\n--- stdout ---\n${sdk.stdout}\n--- stderr ---\n${sdk.stderr}`);
    assert.equal(sdk.stdout, 'vrf_ success\nsuccess\n');
  });
});
