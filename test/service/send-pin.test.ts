// The send and resend use cases (src/service/send-pin.ts) on their own: what they generate, store,
// queue, refuse and audit, on the in-memory store, without HTTP or SQL.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { describe, it, mock } from 'node:test';
import pino from 'pino';
import { createEmailTemplate } from '../../src/service/email-templates.js';
import { createEmailMessageTemplate } from '../../src/service/message-templates.js';
import { addTestNumber } from '../../src/service/test-numbers.js';
import { resendPin, sendPin } from '../../src/service/send-pin.js';
import { verifyPin } from '../../src/service/verify-pin.js';
import { putWorkflow, WorkflowScheduler } from '../../src/service/workflows.js';
import { PHONE, serviceFixture, storedPin, T0 } from './service-fixture.js';

describe('sendPin', () => {
  it('draws the PIN and its id from crypto.randomBytes (redrawing biased bytes) and stores the PIN only as its HMAC and its ciphertext', async () => {
    const f = await serviceFixture();
    // Every draw answers 255, 1, 2, 3...: 255 is above the last whole block of ten digits and must be
    // thrown away, so the PIN can only be 123456; the pinId is the first 16 bytes in hex.
    const draws: number[] = [];
    const randomBytes = mock.method(crypto, 'randomBytes', (n: number) => {
      draws.push(n);
      return Buffer.from(Array.from({ length: n }, (_, i) => (i === 0 ? 255 : i % 256)));
    });
    syncBuiltinESMExports();
    let sent;
    try {
      sent = await f.send();
    } finally {
      randomBytes.mock.restore();
      syncBuiltinESMExports();
    }
    assert.equal(sent.pinId, 'FF0102030405060708090A0B0C0D0E0F');
    assert.ok(draws.length >= 2, 'both the id and the PIN were drawn from crypto.randomBytes');
    const pin = await f.store.getPin(f.principal.accountId, sent.pinId);
    assert.ok(pin);
    assert.equal(pin.pinHash, f.keyring.hashPin(sent.pinId, '123456'), 'stored as its HMAC');
    assert.equal(storedPin(f, pin.id, pin.pinCiphertext), '123456', 'and as a ciphertext the worker decrypts');
    assert.ok(!JSON.stringify(pin).includes('123456'), 'never in clear on the PIN');
    const [message] = await f.claim();
    assert.ok(!JSON.stringify(message?.request).includes('123456'), 'nor in its queued message');
    const audit = await f.store.audit.list(f.principal.accountId, { pinId: sent.pinId }, 10);
    assert.deepEqual(audit.map((e) => [e.event, e.destination]), [['pin.send', '4179*****27']], 'audited, the destination masked');
    assert.ok(!JSON.stringify(audit).includes('123456') && !JSON.stringify(audit).includes(PHONE));
  });

  it('draws a different PIN for each send, of the template\'s length and alphabet', async () => {
    const f = await serviceFixture();
    const pins = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const sent = await f.send(`4179302${String(i).padStart(4, '0')}`);
      const pin = await f.store.getPin(f.principal.accountId, sent.pinId);
      const clear = storedPin(f, sent.pinId, pin!.pinCiphertext);
      assert.match(clear ?? '', /^[0-9]{6}$/);
      pins.add(clear!);
    }
    // 20 draws of 10^6: a repeat has a chance of about 2 in 10,000.
    assert.ok(pins.size >= 19, `${pins.size} distinct PINs of 20`);
  });

  it('queues the message with the request\'s placeholders and wakes the worker; with the channel off it stores the PIN and queues nothing', async () => {
    const f = await serviceFixture();
    const sent = await sendPin(f.ctx, f.principal, 'sms', { applicationId: f.app.id, messageId: f.template.id, to: PHONE, placeholders: { name: 'Ann' } });
    assert.ok(sent.ok);
    assert.equal(sent.value.queued, true);
    const [message] = await f.claim();
    assert.equal(message?.id, sent.value.deliveryId, 'the delivery id names the queued message');
    assert.deepEqual(message?.request, { placeholders: { name: 'Ann' } });
    assert.deepEqual(f.calls.filter((c) => c === 'messageQueued'), ['messageQueued']);

    const off = await serviceFixture({ channels: ['email'] });
    const unsent = await off.send();
    assert.deepEqual([unsent.queued, unsent.deliveryId], [false, undefined]);
    assert.equal((await off.store.getPin(off.principal.accountId, unsent.pinId))?.deliveryStatus, 'not_sent');
    assert.deepEqual(await off.claim(), []);
    assert.ok(!off.calls.includes('messageQueued'));
  });

  it('refuses a send past sendPinPerPhoneNumberLimit, with the time the next one fits, and writes no PIN for it', async () => {
    const f = await serviceFixture({ configuration: { sendPinPerPhoneNumberLimit: '2/1h' } });
    const first = await f.send();
    assert.equal(first.nextResendAt, T0, 'room for another send now');
    f.clock.advance(120_000);
    const second = await f.send();
    assert.equal(second.nextResendAt, T0 + 3_600_000, 'the window is full until the first send leaves it');
    const third = await sendPin(f.ctx, f.principal, 'sms', { applicationId: f.app.id, messageId: f.template.id, to: PHONE });
    assert.equal(third.ok, false);
    assert.equal(!third.ok && third.failure.name, 'SEND_LIMIT_DESTINATION');
    assert.equal(!third.ok && third.failure.retryAfterMs, 3_600_000 - 120_000);
    assert.equal((await f.claim()).length, 2, 'no message for the refused send');
    const refusals = await f.store.audit.list(f.principal.accountId, { event: 'pin.send.refused' }, 10);
    assert.deepEqual(refusals.map((e) => e.reason), ['send:to']);
    assert.ok(f.calls.includes('metric:rateLimited:sendPinPerPhoneNumberLimit'));
    // Another destination has its own window; this one fits again once the first send left it.
    await f.send('41793026728');
    f.clock.advance(3_600_000 - 120_000);
    await f.send();
  });

  it('refuses a send past sendPinPerApplicationLimit, whatever the destination', async () => {
    const f = await serviceFixture({ configuration: { sendPinPerApplicationLimit: '2/1d' } });
    await f.send('41793026701');
    await f.send('41793026702');
    const third = await sendPin(f.ctx, f.principal, 'sms', { applicationId: f.app.id, messageId: f.template.id, to: '41793026703' });
    assert.equal(!third.ok && third.failure.name, 'SEND_LIMIT_APPLICATION');
  });

  it('checks the request before any limit: an invalid destination, an unfilled placeholder or a disabled application spends nothing', async () => {
    const f = await serviceFixture({ configuration: { sendPinPerApplicationLimit: '1/1d' } });
    const bad = await sendPin(f.ctx, f.principal, 'sms', { applicationId: f.app.id, messageId: f.template.id, to: 'not a number' });
    assert.equal(!bad.ok && bad.failure.name, 'INVALID_REQUEST');
    assert.ok(!bad.ok && bad.failure.validationErrors?.['to']);
    const unknownApp = await sendPin(f.ctx, f.principal, 'sms', { applicationId: 'NOPE', messageId: f.template.id, to: PHONE });
    assert.equal(unknownApp.ok, false);
    await f.send();
    assert.deepEqual((await f.claim()).length, 1, 'the one valid send took the only slot');
  });

  it('sends to a test number: its fixed code is the PIN and verifies, nothing is queued, and the audit log marks it', async () => {
    const f = await serviceFixture();
    assert.ok((await addTestNumber(f.ctx, f.principal, { destination: '41795550000', code: '424242' })).ok);
    const sent = await f.send('41795550000');
    assert.deepEqual([sent.testNumber, sent.queued], [true, false]);
    const pin = await f.store.getPin(f.principal.accountId, sent.pinId);
    assert.equal(pin?.testNumber, true);
    assert.equal(pin?.pinHash, f.keyring.hashPin(sent.pinId, '424242'), 'stored like any PIN');
    assert.deepEqual(await f.claim(), [], 'nothing to deliver');
    assert.equal((await f.store.audit.list(f.principal.accountId, { pinId: sent.pinId }, 10))[0]?.reason, 'sms;test-number');
    const verified = await verifyPin(f.ctx, f.principal, sent.pinId, '424242');
    assert.equal(verified.ok && verified.value.verified, true);
    // Any other destination gets a random PIN, delivered.
    assert.equal((await f.send()).testNumber, false);
  });

  it('ignores test numbers under the strict profile unless the operator allows them', async () => {
    const f = await serviceFixture();
    assert.ok((await addTestNumber(f.ctx, f.principal, { destination: '41795550000', code: '42424242' })).ok);
    f.ctx.securityProfile = 'strict';
    const strict = await f.send('41795550000');
    assert.deepEqual([strict.testNumber, strict.queued], [false, true]);
    f.ctx.allowTestNumbers = true;
    assert.equal((await f.send('41795550000')).testNumber, true);
  });
});

describe('resendPin', () => {
  it('queues the same PIN again under the same id, without resetting its attempts or its expiry', async () => {
    const f = await serviceFixture();
    const sent = await f.send();
    await f.deliver();
    const before = await f.store.getPin(f.principal.accountId, sent.pinId);
    const wrong = await verifyPin(f.ctx, f.principal, sent.pinId, '000000');
    assert.ok(wrong.ok);
    f.clock.advance(60_000);
    const resent = await resendPin(f.ctx, f.principal, sent.pinId, 'voice', {});
    assert.ok(resent.ok);
    assert.equal(resent.value.pinId, sent.pinId);
    const [message] = await f.claim();
    assert.deepEqual([message?.id, message?.channel], [resent.value.deliveryId, 'voice'], 'a new message, by voice');
    const after = await f.store.getPin(f.principal.accountId, sent.pinId);
    assert.equal(storedPin(f, sent.pinId, after!.pinCiphertext), storedPin(f, sent.pinId, before!.pinCiphertext), 'the same PIN');
    assert.deepEqual([after?.attemptsLeft, after?.expiresAt, after?.sendCount], [before!.attemptsLeft - 1, before!.expiresAt, 2]);
  });

  it('refuses to resend a PIN that was verified or expired, or another account\'s', async () => {
    const f = await serviceFixture();
    const verified = await f.send();
    const clear = storedPin(f, verified.pinId, (await f.store.getPin(f.principal.accountId, verified.pinId))!.pinCiphertext)!;
    assert.ok((await verifyPin(f.ctx, f.principal, verified.pinId, clear)).ok);
    const again = await resendPin(f.ctx, f.principal, verified.pinId, 'sms', {});
    assert.equal(!again.ok && again.failure.name, 'PIN_ENDED');

    const expiring = await f.send('41793026728');
    f.clock.advance(10 * 60_000);
    const late = await resendPin(f.ctx, f.principal, expiring.pinId, 'sms', {});
    assert.equal(!late.ok && late.failure.name, 'PIN_ENDED');

    const other = await resendPin(f.ctx, { ...f.principal, accountId: 'another-account' }, expiring.pinId, 'sms', {});
    assert.equal(!other.ok && other.failure.name, 'PIN_NOT_FOUND');
    assert.equal((await f.claim()).length, 2, 'only the two sends were queued');
  });

  it('counts against sendPinPerPhoneNumberLimit like a send', async () => {
    const f = await serviceFixture({ configuration: { sendPinPerPhoneNumberLimit: '2/1h' } });
    const sent = await f.send();
    assert.ok((await resendPin(f.ctx, f.principal, sent.pinId, 'sms', {})).ok);
    const third = await resendPin(f.ctx, f.principal, sent.pinId, 'sms', {});
    assert.equal(!third.ok && third.failure.name, 'SEND_LIMIT_DESTINATION');
  });

  it('resends an email PIN only by email, and a phone PIN only to the phone', async () => {
    const f = await serviceFixture();
    const emailTemplate = await createEmailTemplate(f.ctx, f.principal, { name: 'code', subject: 'Your code', text: 'Code: {{pin}}' });
    assert.ok(emailTemplate.ok);
    const message = await createEmailMessageTemplate(f.ctx, f.principal, f.app.id, { emailTemplateId: emailTemplate.value.id, pinType: 'NUMERIC', pinLength: 6 });
    assert.ok(message.ok);
    const email = await sendPin(f.ctx, f.principal, 'email', { applicationId: f.app.id, messageId: message.value.id, to: 'ann@example.com' });
    assert.ok(email.ok);
    const bySms = await resendPin(f.ctx, f.principal, email.value.pinId, 'sms', {});
    assert.equal(!bySms.ok && bySms.failure.name, 'RESEND_CHANNEL_MISMATCH');
    assert.ok((await resendPin(f.ctx, f.principal, email.value.pinId, 'email', {})).ok);
    const phone = await f.send();
    const byEmail = await resendPin(f.ctx, f.principal, phone.pinId, 'email', {});
    assert.equal(!byEmail.ok && byEmail.failure.name, 'RESEND_CHANNEL_MISMATCH');
    assert.deepEqual((await f.claim()).map((m) => m.channel).sort(), ['email', 'email', 'sms']);
  });

  it('never copies a PIN sent through a real transport into the local inbox', async () => {
    const f = await serviceFixture({ context: { channelDelivery: { sms: 'real', voice: 'inbox' } } });
    const sent = await f.send();
    const refused = await resendPin(f.ctx, f.principal, sent.pinId, 'voice', {});
    assert.equal(!refused.ok && refused.failure.name, 'RESEND_INTO_INBOX');
    assert.ok((await resendPin(f.ctx, f.principal, sent.pinId, 'sms', {})).ok, 'the same channel may resend');
  });
});

describe('sends under a workflow', () => {
  const silent = pino({ level: 'silent' });

  it('sends on the first step, resends on the next when it falls due, and stops once the PIN is verified', async () => {
    const f = await serviceFixture();
    assert.ok((await putWorkflow(f.ctx, f.principal, f.app.id, { steps: [{ channel: 'sms' }, { channel: 'voice', after: '30s' }, { channel: 'sms', after: '1m' }] })).ok);
    const sent = await f.send();
    assert.deepEqual((await f.deliver()).map((m) => m.channel), ['sms']);
    const steps = await f.store.workflows.list(f.principal.accountId, sent.pinId);
    assert.deepEqual(steps.map((s) => [s.channel, s.state, s.dueAt]), [['sms', 'sent', T0], ['voice', 'scheduled', T0 + 30_000], ['sms', 'scheduled', T0 + 90_000]]);

    const scheduler = new WorkflowScheduler(f.ctx, silent);
    f.clock.advance(29_999);
    await scheduler.runDue();
    assert.deepEqual(await f.claim(), [], 'not before its time');
    f.clock.advance(1);
    await scheduler.runDue();
    assert.deepEqual((await f.deliver()).map((m) => [m.pinId, m.channel]), [[sent.pinId, 'voice']]);

    const clear = storedPin(f, sent.pinId, (await f.store.getPin(f.principal.accountId, sent.pinId))!.pinCiphertext)!;
    assert.ok((await verifyPin(f.ctx, f.principal, sent.pinId, clear)).ok);
    f.clock.advance(60_000);
    await scheduler.runDue();
    assert.deepEqual(await f.claim(), [], 'nothing more once verified');
    assert.deepEqual((await f.store.workflows.list(f.principal.accountId, sent.pinId)).map((s) => s.state), ['sent', 'sent', 'cancelled']);
  });

  it('drops the steps of a send a limit refused', async () => {
    const f = await serviceFixture({ configuration: { sendPinPerPhoneNumberLimit: '1/1h' } });
    assert.ok((await putWorkflow(f.ctx, f.principal, f.app.id, { steps: [{ channel: 'sms' }, { channel: 'voice', after: '30s' }] })).ok);
    const accepted = await f.send();
    const refused = await sendPin(f.ctx, f.principal, 'sms', { applicationId: f.app.id, messageId: f.template.id, to: PHONE });
    assert.equal(refused.ok, false);
    f.clock.advance(30_000);
    const due = await f.store.workflows.claimDue(f.clock.now, f.clock.now + 30_000, 100);
    assert.deepEqual(due.map((s) => [s.pinId, s.channel]), [[accepted.pinId, 'voice']], 'no step of the PIN that was never written');
  });
});
