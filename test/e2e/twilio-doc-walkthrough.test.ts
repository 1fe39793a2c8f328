// docs/twilio-verify.md's Walkthrough works as written: its shell blocks run in one bash process after
// the exports of the README's five-minute walkthrough (the page continues that walkthrough), against a
// real `twofa serve` on a free port; then its Node SDK block runs with Twilio's SDK from node_modules,
// with the account SID and Auth Token the shell read (`twilio(accountSid, authToken)`).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TWILIO_DOC, runDocWalkthrough, type DocWalkthrough } from '../support/readme.js';

describe('docs/twilio-verify.md walkthrough', () => {
  let run: DocWalkthrough;

  before(async () => {
    run = await runDocWalkthrough(TWILIO_DOC, {
      finalEcho: 'echo "$ACCOUNT_SID $SERVICE_SID $AUTH_TOKEN"',
      sdkEnv: (outputs, server, key) => {
        const [accountSid, serviceSid, authToken] = (outputs.at(-1) ?? '').trim().split(' ');
        return { TWOFA: server, ACCOUNT_SID: accountSid ?? '', AUTH_TOKEN: authToken ?? '', TWOFA_API_KEY: key, SERVICE_SID: serviceSid ?? '' };
      },
    });
  });
  after(async () => { await run?.stop(); });

  it('has the four shell steps and one Node SDK block', () => {
    assert.equal(run.blocks.length, 4, `found ${run.blocks.length} sh blocks`);
    assert.ok(run.sdkBlock?.includes('client.verify.baseUrl = process.env.TWOFA'));
  });

  it('runs every shell step without an error: a Service, a pending verification, then approved', () => {
    const { shell, outputs } = run;
    assert.equal(shell.code, 0, `bash exited ${shell.code}\n--- stdout ---\n${shell.stdout}\n--- stderr ---\n${shell.stderr}`);
    assert.match(outputs[1] ?? '', /^VA[0-9a-f]{32}\s*$/, `step 2 printed ${JSON.stringify(outputs[1])}`);
    assert.match(outputs[2] ?? '', /"to":"\+41793026728","channel":"sms","status":"pending"/);
    assert.match(outputs[3] ?? '', /"status":"approved","valid":true/);
    assert.match(outputs[4] ?? '', /^AC[0-9a-f]{32} VA[0-9a-f]{32} [0-9a-f]{32}\s*$/, 'the account SID, the Service and the Auth Token');
  });

  it('runs the Node SDK block against the same server, with the Auth Token: started pending, then approved', () => {
    const { sdk } = run;
    assert.equal(sdk.code, 0, `node exited ${sdk.code}\n--- stdout ---\n${sdk.stdout}\n--- stderr ---\n${sdk.stderr}`);
    assert.match(sdk.stdout, /^VE[0-9a-f]{32} pending\napproved true\n$/);
  });
});
