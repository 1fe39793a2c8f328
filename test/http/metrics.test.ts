import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';

/** The value of one series in the Prometheus text format, or 0 when it is absent. */
function series(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const labelText = line.slice(name.length + 1, line.indexOf('}'));
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('/metrics after a flow', () => {
  let h: Harness;
  before(async () => { h = await createHarness(); });
  after(async () => { await h.close(); });

  it('counts sends, deliveries, verifications by outcome, refusals, latency and outbox depth', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '1/1d' } });
    const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026727' } });
    const refused = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026727' } });
    assert.equal(refused.status, 429);
    const before = await h.request('GET', '/metrics', { key: null });
    assert.equal(series(before.body, 'twofa_outbox_pending', {}), 1, 'the queued message waits in the outbox');
    const pin = await deliveredPin(h, sent.body.pinId);
    await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { body: { pin: 'WRONG1' } });
    await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { body: { pin } });

    const metrics = await h.request('GET', '/metrics', { key: null });
    assert.equal(metrics.status, 200);
    assert.match(String(metrics.headers['content-type']), /^text\/plain/);
    const text: string = metrics.body;
    assert.equal(series(text, 'twofa_pin_sends_total', { channel: 'sms', kind: 'send', status: 'queued' }), 1);
    assert.equal(series(text, 'twofa_rate_limit_refusals_total', { limit: 'sendPinPerPhoneNumberLimit' }), 1);
    assert.equal(series(text, 'twofa_deliveries_total', { channel: 'sms', transport: 'log', outcome: 'delivered' }), 1);
    assert.equal(series(text, 'twofa_verifications_total', { channel: 'sms', outcome: 'WRONG_PIN' }), 1);
    assert.equal(series(text, 'twofa_verifications_total', { channel: 'sms', outcome: 'verified' }), 1);
    assert.equal(series(text, 'twofa_outbox_pending', {}), 0);
    assert.ok(series(text, 'twofa_http_request_duration_seconds_count', { method: 'POST', route: '/2fa/2/pin', status: '200' }) >= 1);
    assert.ok(series(text, 'twofa_delivery_duration_seconds_count', { channel: 'sms', transport: 'log' }) >= 1);
    assert.doesNotMatch(text, /41793026727/, 'no destination in any label');
  });
});
