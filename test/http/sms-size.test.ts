// The SMS size cap (TWOFA_SMS_MAX_SEGMENTS, default 3): an SMS send or resend whose message, rendered
// with the request's placeholder values, would take more parts is a 400 on
// validationErrors.placeholders, and nothing is queued or delivered. Voice and email are not capped.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';
import { assertFieldError, createEmailMessage, forbid5xx, freshEmail, freshPhone, inboxFor, type HttpResult } from '../support/http-assertions.js';

type Message = { applicationId: string; messageId: string };

describe('the SMS size cap', () => {
  let h: Harness;
  let one: Harness;
  before(async () => {
    h = forbid5xx(await createHarness());
    one = forbid5xx(await createHarness({ TWOFA_SMS_MAX_SEGMENTS: '1' }));
  });
  after(async () => {
    await h?.close();
    await one?.close();
  });

  const send = (harness: Harness, message: Message, to: string, placeholders: Record<string, string>, path = '/2fa/2/pin') =>
    harness.request('POST', path, { body: { ...message, to, placeholders } });

  /** A send that must be accepted, delivered at once so that the outbox is empty again. */
  async function accepted(harness: Harness, response: HttpResult, what?: string): Promise<void> {
    assert.equal(response.status, 200, what ?? JSON.stringify(response.body));
    await harness.node.worker.drain();
  }

  /** A 400 naming the SMS size on `placeholders`, with nothing left in the outbox and nothing delivered to `to`. */
  async function assertTooLong(harness: Harness, response: HttpResult, to: string, delivered = 0): Promise<void> {
    const [reason] = assertFieldError(response, 'placeholders');
    assert.match(reason ?? '', /SMS would take \d+ parts .*at most \d+/);
    assert.equal(await harness.node.store.countPendingOutbox(), 0, 'nothing queued');
    assert.equal((await inboxFor(harness, to)).length, delivered, 'nothing more delivered');
  }

  it('refuses a send whose placeholder values make the SMS longer than 3 parts (GSM-7: 459 characters)', async () => {
    const sms = await createAppAndTemplate(h, { template: { messageText: '{{pin}} {{note}}' } });
    const fits = freshPhone();
    // 6-digit PIN, a space and 452 characters: 459 septets, exactly 3 parts of 153.
    await accepted(h, await send(h, sms, fits, { note: 'a'.repeat(452) }));
    assert.equal((await inboxFor(h, fits)).length, 1);
    const to = freshPhone();
    await assertTooLong(h, await send(h, sms, to, { note: 'a'.repeat(453) }), to);
    await assertTooLong(h, await send(h, sms, to, { note: 'a'.repeat(1000) }), to);
  });

  it('counts UCS-2 messages at 67 characters per part', async () => {
    const sms = await createAppAndTemplate(h, { template: { messageText: '{{pin}} {{name}}' } });
    const fits = freshPhone();
    // 7 + 194 = 201 UTF-16 units: exactly 3 parts of 67.
    await accepted(h, await send(h, sms, fits, { name: 'я'.repeat(194) }));
    const to = freshPhone();
    await assertTooLong(h, await send(h, sms, to, { name: 'я'.repeat(195) }), to);
  });

  it('counts a placeholder as often as the template repeats it', async () => {
    const sms = await createAppAndTemplate(h, { template: { messageText: '{{x}}{{x}}{{x}}{{x}}{{x}}{{x}} {{pin}}' } });
    const to = freshPhone();
    await accepted(h, await send(h, sms, to, { x: 'a'.repeat(70) }), '6 x 70 + 7 = 427 characters: 3 parts');
    await assertTooLong(h, await send(h, sms, to, { x: 'a'.repeat(80) }), to, 1);
  });

  it('refuses an SMS resend with long placeholders; a voice resend and voice and email sends are not capped', async () => {
    const sms = await createAppAndTemplate(h, { template: { messageText: 'Code {{pin}} {{note}}' } });
    const to = freshPhone();
    const sent = await send(h, sms, to, { note: 'short' });
    await accepted(h, sent);
    assert.equal((await inboxFor(h, to)).length, 1);
    const long = { note: 'a'.repeat(1000) };
    const resent = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { body: { placeholders: long } });
    const bySend = await send(h, sms, to, long);
    assert.deepEqual(resent.body, bySend.body, 'the resend gets the answer of a send');
    await assertTooLong(h, resent, to, 1);
    assert.equal((await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend/voice`, { body: { placeholders: long } })).status, 200);
    assert.equal((await send(h, sms, freshPhone(), long, '/2fa/2/pin/voice')).status, 200);
    const email = { applicationId: sms.applicationId, messageId: (await createEmailMessage(h, sms.applicationId, { template: { text: 'Code {{pin}} {{note}}' } })).messageId };
    assert.equal((await send(h, email, freshEmail(), long, '/2fa/2/pin/email')).status, 200);
  });

  it('TWOFA_SMS_MAX_SEGMENTS sets the cap', async () => {
    const sms = await createAppAndTemplate(one, { template: { messageText: '{{pin}} {{note}}' } });
    const fits = freshPhone();
    await accepted(one, await send(one, sms, fits, { note: 'a'.repeat(153) }), '160 characters: one SMS');
    const to = freshPhone();
    await assertTooLong(one, await send(one, sms, to, { note: 'a'.repeat(154) }), to);
  });
});
