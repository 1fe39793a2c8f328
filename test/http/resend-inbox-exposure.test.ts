// A PIN delivered through a real transport never lands in the local inbox: with a real SMS transport
// (a webhook receiver on loopback) and voice left at log://, resending an SMS PIN by voice is refused
// with a 400 that says why, nothing reaches GET /api/v1/inbox, and the node warns at start.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';
import { assertEnvelope, forbid5xx, freshPhone, inboxFor } from '../support/http-assertions.js';

const MIXED_WARNING = /log:\/\/ delivers voice, email PINs to the local inbox.*while sms use real transports/;

describe('resend never copies a PIN sent through a real transport into the log:// inbox', () => {
  let h: Harness;
  let receiver: http.Server;
  const received: string[] = [];

  before(async () => {
    // The real SMS transport: a webhook receiver on loopback that accepts every message.
    receiver = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    h = forbid5xx(await createHarness({ TWOFA_SMS_DSN: `webhook+http://127.0.0.1:${port}/sms?secret=${secret}` }));
  });
  after(async () => {
    await h?.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('refuses the voice resend of an SMS PIN with a 400 naming log://, and the inbox never shows the PIN', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(h);
    const to = freshPhone();
    const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to } });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const pinId = sent.body.pinId as string;

    const voice = await h.request('POST', `/2fa/2/pin/${pinId}/resend/voice`, { body: {} });
    const refusal = assertEnvelope(voice, 400, 'BAD_REQUEST');
    assert.match(refusal.text, /voice channel delivers through log:\/\/.*local inbox/);

    // The SMS went out through the real transport, and nothing of the PIN is in the inbox.
    assert.deepEqual(await inboxFor(h, to), []);
    assert.equal(received.filter((body) => body.includes(pinId)).length, 1, 'the SMS reached the webhook receiver');

    // A resend on the PIN's own, real channel is not affected.
    const again = await h.request('POST', `/2fa/2/pin/${pinId}/resend`, { body: {} });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(await inboxFor(h, to), []);
    assert.equal(received.filter((body) => body.includes(pinId)).length, 2);
  });

  it('warns at start that log:// channels sit beside a real one, on loopback as well', () => {
    const warnings = h.logs.map((line) => JSON.parse(line) as { level: number; msg: string; inboxChannels?: string[]; realChannels?: string[] })
      .filter((line) => line.level === 40 && MIXED_WARNING.test(line.msg));
    assert.equal(warnings.length, 1, h.logs.join('\n'));
    assert.deepEqual(warnings[0]?.inboxChannels, ['voice', 'email']);
    assert.deepEqual(warnings[0]?.realChannels, ['sms']);
  });

  it('with every channel at log:// (development), a voice resend of an SMS PIN still works and nothing is warned', async () => {
    const dev = forbid5xx(await createHarness());
    try {
      const { applicationId, messageId } = await createAppAndTemplate(dev);
      const sent = await dev.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: freshPhone() } });
      const voice = await dev.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend/voice`, { body: {} });
      assert.equal(voice.status, 200, JSON.stringify(voice.body));
      assert.ok(!dev.logs.some((line) => MIXED_WARNING.test(line)));
    } finally {
      await dev.close();
    }
  });
});
