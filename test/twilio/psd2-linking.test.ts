// PSD2 dynamic linking holds for every PIN a PSD2 Service can be asked to check: one that no start
// recorded an Amount and Payee for (sent through Infobip's API to the Service's application) is not
// checked by the Twilio dialect.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { freshPhone } from '../support/http-assertions.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('PSD2 dynamic linking of a PIN without its start', () => {
  let h: Harness;
  before(async () => { h = await createHarness(); });
  after(async () => { await h.close(); });

  it('does not approve a PSD2 Service\'s PIN that has no Amount and Payee to link its code to', async () => {
    const service = await h.request('POST', '/v2/Services', { rawBody: 'FriendlyName=Bank&Psd2Enabled=true', headers: FORM });
    assert.equal(service.status, 201, JSON.stringify(service.body));
    const applicationId = (service.body.sid as string).slice(2).toUpperCase();
    const message = await h.request('POST', `/2fa/2/applications/${applicationId}/messages`, { body: { pinType: 'NUMERIC', pinLength: 6, messageText: 'Your code is {{pin}}' } });
    assert.equal(message.status, 200, JSON.stringify(message.body));
    const to = freshPhone();
    const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId: message.body.messageId, to } });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const code = await deliveredPin(h, sent.body.pinId);

    const check = await h.request('POST', `/v2/Services/${service.body.sid}/VerificationCheck`, {
      rawBody: new URLSearchParams({ To: `+${to}`, Code: code, Amount: '€1000', Payee: 'Mallory' }).toString(), headers: FORM,
    });
    assert.equal(check.status, 404, JSON.stringify(check.body));
    assert.equal(check.body.code, 20404);
    // The PIN was not spent: it still verifies where it was sent from.
    assert.equal((await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { body: { pin: code } })).body.verified, true);
  });
});
