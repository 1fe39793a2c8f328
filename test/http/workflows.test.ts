// Workflows through the API on one in-process node (SQLite, and PostgreSQL when the HTTP suite runs
// there): the /api/v1 operations and their validation, and a PIN that follows its application's
// steps on the harness's clock, delivered to the local inbox (log://) so the same PIN can be read on
// each channel. The scheduler is run by hand (runDue) after the clock moves; the end-to-end test
// with real peers and a killed server is test/e2e/workflows.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applicationIdOf, pinIdOf } from '../../src/domain/twilio-sids.js';
import { createAppAndTemplate, createHarness, deliveredPin, twilioBasic, type Harness } from '../support/harness.js';

const TO = '41793026727';
const THREE_STEPS = { steps: [{ channel: 'whatsapp' }, { channel: 'sms', after: '30s' }, { channel: 'voice', after: '60s' }] };

describe('workflows: the API', () => {
  let h: Harness;
  let ids: { applicationId: string; messageId: string };
  before(async () => {
    h = await createHarness({ TWOFA_WHATSAPP_DSN: 'log://', TWOFA_TELEGRAM_DSN: 'log://' });
    ids = await createAppAndTemplate(h);
  });
  after(() => h.close());

  it('sets, reads and removes an application\'s workflow', async () => {
    const path = `/api/v1/applications/${ids.applicationId}/workflow`;
    assert.deepEqual((await h.request('GET', path)).body, { steps: [] }, 'none at first');
    const put = await h.request('PUT', path, { body: THREE_STEPS });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(put.body, THREE_STEPS);
    assert.deepEqual((await h.request('GET', path)).body, THREE_STEPS);
    // The Infobip update of the application keeps the workflow.
    const updated = await h.request('PUT', `/2fa/2/applications/${ids.applicationId}`, { body: { name: 'renamed', configuration: { pinAttempts: 5 } } });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(JSON.stringify(updated.body).includes('workflow'), false, 'nothing of it in Infobip\'s body');
    assert.deepEqual((await h.request('GET', path)).body, THREE_STEPS);
    assert.equal((await h.request('DELETE', path)).status, 204);
    assert.deepEqual((await h.request('GET', path)).body, { steps: [] });
  });

  it('refuses unknown channels, a delay on the first step or none on later ones, bad or huge delays, too many steps', async () => {
    const path = `/api/v1/applications/${ids.applicationId}/workflow`;
    const cases: Array<[unknown, string]> = [
      [{ steps: [{ channel: 'pigeon' }] }, 'steps[0].channel'],
      [{ steps: [{ channel: 'sms', after: '10s' }] }, 'steps[0].after'],
      [{ steps: [{ channel: 'sms' }, { channel: 'voice' }] }, 'steps[1].after'],
      [{ steps: [{ channel: 'sms' }, { channel: 'voice', after: 'soon' }] }, 'steps[1].after'],
      [{ steps: [{ channel: 'sms' }, { channel: 'voice', after: '2h' }] }, 'steps[1].after'],
      [{ steps: [{ channel: 'sms' }, { channel: 'voice', after: '500ms' }] }, 'steps[1].after'],
      [{ steps: [] }, 'steps'],
      [{ steps: Array.from({ length: 6 }, (_, i) => (i === 0 ? { channel: 'sms' } : { channel: 'sms', after: '10s' })) }, 'steps'],
    ];
    for (const [body, field] of cases) {
      const answer = await h.request('PUT', path, { body });
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.ok(answer.body.requestError.serviceException.validationErrors?.[field], `${field} in ${JSON.stringify(answer.body)}`);
    }
    const unknownField = await h.request('PUT', path, { body: { steps: [{ channel: 'sms', delay: '1s' }] } });
    assert.equal(unknownField.status, 400);
    assert.deepEqual((await h.request('GET', path)).body, { steps: [] }, 'nothing refused was stored');
  });

  it('is an account\'s own: another account\'s application is 404, and a send-only key may not change it', async () => {
    const path = `/api/v1/applications/${ids.applicationId}/workflow`;
    assert.equal((await h.request('GET', path, { key: h.keys.b })).status, 404);
    assert.equal((await h.request('PUT', path, { key: h.keys.b, body: THREE_STEPS })).status, 404);
    assert.equal((await h.request('DELETE', path, { key: h.keys.b })).status, 404);
    assert.equal((await h.request('PUT', path, { key: h.keys.sendOnly, body: THREE_STEPS })).status, 403);
    assert.equal((await h.request('GET', '/api/v1/applications/NOPE/workflow')).status, 404);
  });
});

describe('workflows: a PIN follows its application\'s steps', () => {
  let h: Harness;
  let ids: { applicationId: string; messageId: string };
  before(async () => {
    h = await createHarness({ TWOFA_WHATSAPP_DSN: 'log://', TWOFA_TELEGRAM_DSN: 'log://' });
    ids = await createAppAndTemplate(h);
    assert.equal((await h.request('PUT', `/api/v1/applications/${ids.applicationId}/workflow`, { body: THREE_STEPS })).status, 200);
  });
  after(() => h.close());

  async function inboxChannels(pinId: string): Promise<string[]> {
    await h.node.worker.drain();
    const details = await h.request('GET', `/api/v1/pins/${pinId}`);
    return details.body.history.filter((e: { event: string }) => e.event === 'sent').map((e: { channel: string }) => e.channel);
  }

  async function steps(pinId: string): Promise<Array<{ channel: string; state: string }>> {
    const details = await h.request('GET', `/api/v1/pins/${pinId}`);
    return details.body.workflow.map((s: { channel: string; state: string }) => ({ channel: s.channel, state: s.state }));
  }

  it('sends the same PIN on each step after its delay, and stops once it is verified', async () => {
    const sent = await h.request('POST', '/2fa/2/pin', { body: { ...ids, to: TO } });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.deepEqual(Object.keys(sent.body).sort(), ['callStatus', 'ncStatus', 'pinId', 'smsStatus', 'to'].filter((k) => k in sent.body).sort());
    const pinId = sent.body.pinId as string;
    const pin = await deliveredPin(h, pinId);
    assert.deepEqual(await inboxChannels(pinId), ['whatsapp'], 'the first step\'s channel, not SMS');
    assert.deepEqual(await steps(pinId), [{ channel: 'whatsapp', state: 'sent' }, { channel: 'sms', state: 'scheduled' }, { channel: 'voice', state: 'scheduled' }]);

    h.clock.advance(29_000);
    await h.node.workflows.runDue();
    assert.deepEqual(await inboxChannels(pinId), ['whatsapp'], 'not before its delay');
    h.clock.advance(1_000);
    await h.node.workflows.runDue();
    assert.deepEqual(await inboxChannels(pinId), ['whatsapp', 'sms']);
    const messages = h.node.inbox.list(await accountOf(h), { limit: 100 }).filter((m) => m.pinId === pinId);
    assert.equal(messages.length, 2);
    for (const m of messages) assert.ok(m.text?.includes(pin), 'the same PIN on every channel');
    await h.node.workflows.runDue();
    assert.deepEqual(await inboxChannels(pinId), ['whatsapp', 'sms'], 'a step runs once');

    const verified = await h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin } });
    assert.equal(verified.body.verified, true);
    h.clock.advance(60_000);
    await h.node.workflows.runDue();
    assert.deepEqual(await inboxChannels(pinId), ['whatsapp', 'sms'], 'no voice call after the verification');
    assert.deepEqual(await steps(pinId), [{ channel: 'whatsapp', state: 'sent' }, { channel: 'sms', state: 'sent' }, { channel: 'voice', state: 'cancelled' }]);
  });

  it('renders every step with the send\'s placeholders and sender override, as its first message', async () => {
    const named = await createAppAndTemplate(h, { template: { messageText: 'Hello {{name}}, your code is {{pin}}' } });
    await h.request('PUT', `/api/v1/applications/${named.applicationId}/workflow`, { body: { steps: [{ channel: 'sms' }, { channel: 'voice', after: '30s' }] } });
    const sent = await h.request('POST', '/2fa/2/pin', { body: { ...named, to: '41793026729', from: 'Brand', placeholders: { name: 'Ann' } } });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const pinId = sent.body.pinId as string;
    const pin = await deliveredPin(h, pinId);
    h.clock.advance(30_000);
    await h.node.workflows.runDue();
    assert.deepEqual(await inboxChannels(pinId), ['sms', 'voice']);
    const voice = h.node.inbox.list(await accountOf(h), { limit: 100 }).find((m) => m.pinId === pinId && m.channel === 'voice');
    assert.equal(voice?.text, `Hello Ann, your code is ${pin}`);
    assert.equal(voice?.from, 'Brand');
    assert.deepEqual(await steps(pinId), [{ channel: 'sms', state: 'sent' }, { channel: 'voice', state: 'sent' }]);
  });

  it('sends every step of a Twilio start: its template\'s {{friendly_name}} is the Service\'s name on each channel', async () => {
    const headers = { 'content-type': 'application/x-www-form-urlencoded', authorization: await twilioBasic(h.node.store, h.keys.a) };
    const service = await h.request('POST', '/v2/Services', { rawBody: 'FriendlyName=Acme', headers });
    assert.equal(service.status, 201, JSON.stringify(service.body));
    const applicationId = applicationIdOf(service.body.sid as string);
    assert.ok(applicationId);
    await h.request('PUT', `/api/v1/applications/${applicationId}/workflow`, { body: { steps: [{ channel: 'sms' }, { channel: 'voice', after: '30s' }] } });
    const started = await h.request('POST', `/v2/Services/${service.body.sid}/Verifications`, { rawBody: 'To=%2B41793026730&Channel=sms', headers });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const pinId = pinIdOf(started.body.sid as string);
    assert.ok(pinId);
    await h.node.worker.drain();
    h.clock.advance(30_000);
    await h.node.workflows.runDue();
    assert.deepEqual(await inboxChannels(pinId), ['sms', 'voice']);
    const texts = h.node.inbox.list(await accountOf(h), { limit: 100 }).filter((m) => m.pinId === pinId).map((m) => m.text ?? '');
    assert.equal(texts.length, 2);
    for (const text of texts) assert.match(text, /Acme/);
  });

  it('counts each step by its channel\'s limits: a refused step is skipped and the next one goes at once', async () => {
    const limited = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '2/1d' } });
    await h.request('PUT', `/api/v1/applications/${limited.applicationId}/workflow`, { body: THREE_STEPS });
    const sent = await h.request('POST', '/2fa/2/pin', { body: { ...limited, to: '41793026728' } });
    const pinId = sent.body.pinId as string;
    // Delivered before the clock moves: two messages sent in the same millisecond have no order in the history.
    assert.deepEqual(await inboxChannels(pinId), ['whatsapp']);
    h.clock.advance(30_000);
    await h.node.workflows.runDue();
    await h.node.workflows.runDue();
    assert.deepEqual(await inboxChannels(pinId), ['whatsapp', 'sms']);
    h.clock.advance(60_000);
    await h.node.workflows.runDue();
    assert.deepEqual(await inboxChannels(pinId), ['whatsapp', 'sms'], 'the third send to the number is over the limit');
    const details = await h.request('GET', `/api/v1/pins/${pinId}`);
    assert.equal(details.body.workflow[2].state, 'skipped');
    assert.match(details.body.workflow[2].reason, /sendPinPerPhoneNumberLimit/);
  });

  it('skips steps that cannot reach the destination: an email PIN takes only the workflow\'s email steps', async () => {
    const mixed = await createAppAndTemplate(h);
    await h.request('PUT', `/api/v1/applications/${mixed.applicationId}/workflow`, { body: { steps: [{ channel: 'sms' }, { channel: 'telegram', after: '10s' }] } });
    const emailTemplate = await h.request('POST', '/api/v1/email-templates', { body: { name: 'code', subject: 'Code', text: 'Your code is {{pin}}' } });
    const message = await h.request('POST', `/2fa/2/applications/${mixed.applicationId}/email/messages`, { body: { pinType: 'NUMERIC', pinLength: 6, emailTemplateId: emailTemplate.body.id } });
    assert.equal(message.status, 200, JSON.stringify(message.body));
    const sent = await h.request('POST', '/2fa/2/pin/email', { body: { applicationId: mixed.applicationId, messageId: message.body.messageId, to: 'ada@example.com' } });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const pinId = sent.body.pinId as string;
    assert.deepEqual(await inboxChannels(pinId), ['email'], 'no phone step applies: sent as asked');
    const details = await h.request('GET', `/api/v1/pins/${pinId}`);
    assert.deepEqual(details.body.workflow.map((s: { state: string }) => s.state), ['skipped', 'skipped']);
    assert.match(details.body.workflow[0].reason, /email address/);
  });

  it('changes nothing without a workflow', async () => {
    const plain = await createAppAndTemplate(h);
    const sent = await h.request('POST', '/2fa/2/pin', { body: { ...plain, to: '41793026729' } });
    const pinId = sent.body.pinId as string;
    assert.deepEqual(await inboxChannels(pinId), ['sms']);
    const details = await h.request('GET', `/api/v1/pins/${pinId}`);
    assert.equal('workflow' in details.body, false);
  });
});

async function accountOf(h: Harness): Promise<string> {
  const { authenticate } = await import('../../src/service/api-keys.js');
  return (await authenticate(h.node.store, `App ${h.keys.a}`))!.accountId;
}
