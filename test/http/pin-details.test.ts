import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';

describe('GET /api/v1/pins/{pinId}: state and delivery history', () => {
  let h: Harness;
  before(async () => { h = await createHarness(); });
  after(async () => { await h.close(); });

  it('shows the delivery history and state of a PIN, never the PIN, and only to its account', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(h);
    const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026727' } });
    const pinId = sent.body.pinId as string;
    const queued = await h.request('GET', `/api/v1/pins/${pinId}`);
    assert.equal(queued.status, 200);
    assert.equal(queued.body.delivery.status, 'queued');
    const pin = await deliveredPin(h, pinId);

    const delivered = await h.request('GET', `/api/v1/pins/${pinId}`);
    assert.equal(delivered.body.state, 'pending');
    assert.equal(delivered.body.delivery.status, 'sent');
    assert.equal(delivered.body.delivery.transport, 'log');
    assert.deepEqual(delivered.body.history.map((e: { event: string }) => e.event), ['queued', 'sent']);
    assert.equal(delivered.body.to, '41793026727');
    assert.ok(!JSON.stringify(delivered.body).includes(pin), 'the PIN is never shown');

    await h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin } });
    const verified = await h.request('GET', `/api/v1/pins/${pinId}`);
    assert.equal(verified.body.state, 'verified');
    assert.equal(verified.body.attemptsRemaining, 9);
    assert.equal(typeof verified.body.verifiedAt, 'number');

    const other = await h.request('GET', `/api/v1/pins/${pinId}`, { key: h.keys.b });
    assert.equal(other.status, 404);
    assert.equal(other.body.requestError.serviceException.messageId, 'NOT_FOUND');
    const sendOnly = await h.request('GET', `/api/v1/pins/${pinId}`, { key: h.keys.sendOnly });
    assert.equal(sendOnly.status, 200);
  });
});
