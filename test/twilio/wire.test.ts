// The Twilio Verify dialect's wire conventions, through inject(): its error body under /v2 (and
// Infobip's everywhere else, unchanged), HTTP Basic with the account SID, form-encoded bodies.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, type Harness } from '../support/harness.js';
import { assertTwilioError } from './documented-fields.js';

describe('Twilio Verify wire conventions', () => {
  let h: Harness;
  before(async () => { h = await createHarness(); });
  after(async () => { await h.close(); });

  it('shows the account SID, the same for every key of one account, on GET /api/v1/me', async () => {
    const a = (await h.request('GET', '/api/v1/me')).body.accountSid;
    assert.match(a, /^AC[0-9a-f]{32}$/);
    assert.equal((await h.request('GET', '/api/v1/me', { key: h.keys.sendOnly })).body.accountSid, a);
    const b = (await h.request('GET', '/api/v1/me', { key: h.keys.b })).body.accountSid;
    assert.match(b, /^AC[0-9a-f]{32}$/);
    assert.notEqual(b, a);
  });

  it('answers an unknown /v2 path with Twilio\'s 20404 body, and an unknown Infobip path with Infobip\'s envelope', async () => {
    const twilio = await h.request('GET', '/v2/NoSuchResource');
    assert.equal(twilio.status, 404);
    assertTwilioError(twilio.body, 404, 20404);
    const infobip = await h.request('GET', '/2fa/2/no-such-resource');
    assert.equal(infobip.status, 404);
    assert.equal(infobip.body.requestError.serviceException.messageId, 'NOT_FOUND');
  });
});
