import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';

describe('the whole flow of the specification', () => {
  let h: Harness;
  before(async () => { h = await createHarness(); });
  after(async () => { await h.close(); });

  it('creates an application and a template, sends a PIN by SMS, reads it in the inbox and verifies it', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(h);
    const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026727' } });
    assert.equal(sent.status, 200);
    assert.match(sent.body.pinId, /^[0-9A-F]{32}$/);
    assert.deepEqual(Object.keys(sent.body).sort(), ['ncStatus', 'pinId', 'smsStatus', 'to']);
    assert.equal(sent.body.smsStatus, 'MESSAGE_SENT');
    const pin = await deliveredPin(h, sent.body.pinId);
    assert.match(pin, /^\d{6}$/);
    const verified = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { body: { pin } });
    assert.equal(verified.status, 200);
    assert.deepEqual(verified.body, { pinId: sent.body.pinId, msisdn: '41793026727', verified: true, attemptsRemaining: 9 });
  });
});
