// Test numbers (/api/v1/test-numbers) through inject(), on SQLite and (npm test runs test/http twice)
// PostgreSQL: a send to one, in any dialect and on any channel, is accepted and recorded but delivers
// nothing, and only its fixed code verifies, under the PIN's usual attempts, limits and lock; the
// list is per account, refused under the strict profile unless the operator allows it, and test
// traffic is marked in the audit log, the events and the statistics.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import { authenticate } from '../../src/service/api-keys.js';
import type { KyselyStore } from '../../src/store/kysely-store.js';
import { createAppAndTemplate, createHarness, deliveredPin, HARNESS_SECRET, type Harness } from '../support/harness.js';
import { freshEmail, freshPhone } from '../support/http-assertions.js';

async function accountOf(h: Harness, key: string): Promise<string> {
  const principal = await authenticate(h.node.store, `App ${key}`);
  assert.ok(principal);
  return principal.accountId;
}

/** Whether anything reached the inbox or is waiting in the outbox for this PIN, after the worker ran. */
async function delivered(h: Harness, pinId: string): Promise<boolean> {
  await h.node.worker.drain();
  const accountId = await accountOf(h, h.keys.a);
  const inInbox = h.node.inbox.list(accountId, { limit: 1000 }).some((m) => m.pinId === pinId);
  const outbox = await (h.node.store as KyselyStore).db.selectFrom('outbox').select('id').where('pin_id', '=', pinId).execute();
  return inInbox || outbox.length > 0;
}

const verify = (h: Harness, pinId: string, pin: string) => h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin } });

async function addTestNumber(h: Harness, destination: string, code: string, key?: string): Promise<string> {
  const added = await h.request('POST', '/api/v1/test-numbers', { body: { destination, code }, ...(key !== undefined ? { key } : {}) });
  assert.equal(added.status, 200, JSON.stringify(added.body));
  return added.body.id as string;
}

describe('test numbers', () => {
  let h: Harness;
  let app: { applicationId: string; messageId: string };
  before(async () => {
    h = await createHarness({ TWOFA_WHATSAPP_DSN: 'log://', TWOFA_TELEGRAM_DSN: 'log://' });
    app = await createAppAndTemplate(h, { configuration: { pinAttempts: 3, allowMultiplePinVerifications: false } });
  });
  after(async () => { await h?.close(); });

  it('adds, lists and removes test numbers, normalised as sends normalise destinations; the code is never shown nor stored in clear', async () => {
    const phone = freshPhone();
    const added = await h.request('POST', '/api/v1/test-numbers', { body: { destination: `+${phone}`, code: '123456' } });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.deepEqual(Object.keys(added.body).sort(), ['createdAt', 'destination', 'id']);
    assert.equal(added.body.destination, phone);
    const email = freshEmail();
    h.clock.advance(1); // oldest first
    const mail = await h.request('POST', '/api/v1/test-numbers', { body: { destination: email.replace(/@.*/, '@EXAMPLE.com'), code: 'Rev1ew' } });
    assert.equal(mail.status, 200, JSON.stringify(mail.body));
    assert.equal(mail.body.destination, email.replace(/@.*/, '@example.com'), 'the domain lower-cased, as sends do');

    const listed = await h.request('GET', '/api/v1/test-numbers');
    assert.equal(listed.status, 200);
    const mine = listed.body.filter((t: { id: string }) => [added.body.id, mail.body.id].includes(t.id));
    assert.deepEqual(mine, [added.body, mail.body]);
    assert.equal(JSON.stringify(listed.body).includes('123456'), false, 'no code listed');
    const rows = await (h.node.store as KyselyStore).db.selectFrom('test_numbers').selectAll().execute();
    assert.ok(rows.length >= 2);
    for (const row of rows) assert.equal(JSON.stringify(row).includes('123456') || JSON.stringify(row).includes('Rev1ew'), false, 'no code in clear in the database');

    assert.equal((await h.request('DELETE', `/api/v1/test-numbers/${added.body.id}`)).status, 204);
    assert.equal((await h.request('DELETE', `/api/v1/test-numbers/${added.body.id}`)).status, 404);
    assert.equal((await h.request('GET', '/api/v1/test-numbers')).body.some((t: { id: string }) => t.id === added.body.id), false);
  });

  it('refuses a duplicate (409, whatever its spelling), a bad destination or code (400), and a send-only key (403)', async () => {
    const phone = freshPhone();
    await addTestNumber(h, phone, '111222');
    const again = await h.request('POST', '/api/v1/test-numbers', { body: { destination: `+${phone}`, code: '333444' } });
    assert.equal(again.status, 409);
    for (const body of [{ destination: '0790000001', code: '123456' }, { destination: 'not-an-address@', code: '123456' }, { destination: freshPhone(), code: '12' },
      { destination: freshPhone(), code: '12 34 56' }, { destination: freshPhone(), code: 'x'.repeat(17) }, { destination: freshPhone() }, { destination: freshPhone(), code: '123456', extra: 1 }]) {
      const refused = await h.request('POST', '/api/v1/test-numbers', { body });
      assert.equal(refused.status, 400, JSON.stringify(body));
    }
    assert.equal((await h.request('GET', '/api/v1/test-numbers', { key: h.keys.sendOnly })).status, 403);
    assert.equal((await h.request('POST', '/api/v1/test-numbers', { key: h.keys.sendOnly, body: { destination: freshPhone(), code: '123456' } })).status, 403);
  });

  it('keeps accounts apart: another account neither sees nor removes a test number, and its sends to it are real', async () => {
    const phone = freshPhone();
    const id = await addTestNumber(h, phone, '555666');
    const other = await h.request('GET', '/api/v1/test-numbers', { key: h.keys.b });
    assert.equal(other.status, 200);
    assert.equal(other.body.some((t: { id: string }) => t.id === id), false);
    assert.equal((await h.request('DELETE', `/api/v1/test-numbers/${id}`, { key: h.keys.b })).status, 404);
    // Account B may list the same destination with a code of its own.
    await addTestNumber(h, phone, '777888', h.keys.b);

    const appB = await createAppAndTemplate(h, { key: h.keys.b });
    const removedForB = (await h.request('GET', '/api/v1/test-numbers', { key: h.keys.b })).body.find((t: { destination: string }) => t.destination === phone);
    assert.equal((await h.request('DELETE', `/api/v1/test-numbers/${removedForB.id}`, { key: h.keys.b })).status, 204);
    const sent = await h.request('POST', '/2fa/2/pin', { key: h.keys.b, body: { ...appB, to: phone } });
    assert.equal(sent.status, 200);
    const pin = await deliveredPin(h, sent.body.pinId);
    assert.equal((await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { key: h.keys.b, body: { pin } })).body.verified, true);
  });

  it('accepts an SMS send, delivers nothing, and verifies the fixed code only; the PIN is marked', async () => {
    const phone = freshPhone();
    await addTestNumber(h, phone, '424242');
    const sent = await h.request('POST', '/2fa/2/pin', { body: { ...app, to: phone } });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.smsStatus, 'MESSAGE_SENT', 'answered as a message sent: the app under review proceeds');
    const pinId = sent.body.pinId as string;
    assert.equal(await delivered(h, pinId), false);

    const details = await h.request('GET', `/api/v1/pins/${pinId}`);
    assert.equal(details.status, 200);
    assert.equal(details.body.testNumber, true);
    assert.equal(details.body.delivery.status, 'not_sent');
    assert.deepEqual(details.body.history, []);
    const listed = await h.request('GET', `/api/v1/pins?to=${phone}`);
    assert.equal(listed.body.pins[0].testNumber, true);

    const wrong = await verify(h, pinId, '424243');
    assert.deepEqual([wrong.status, wrong.body.verified, wrong.body.pinError, wrong.body.attemptsRemaining], [200, false, 'WRONG_PIN', 2]);
    const right = await verify(h, pinId, '424242');
    assert.deepEqual([right.body.verified, right.body.attemptsRemaining], [true, 1]);
    assert.equal((await verify(h, pinId, '424242')).body.pinError, 'ALREADY_VERIFIED');
  });

  it('resends (SMS, voice) without delivering; the code stays the fixed one', async () => {
    const phone = freshPhone();
    await addTestNumber(h, phone, '909090');
    const sent = await h.request('POST', '/2fa/2/pin', { body: { ...app, to: phone } });
    const pinId = sent.body.pinId as string;
    const resent = await h.request('POST', `/2fa/2/pin/${pinId}/resend`, { body: {} });
    assert.equal(resent.status, 200, JSON.stringify(resent.body));
    assert.equal(resent.body.smsStatus, 'MESSAGE_SENT');
    const byVoice = await h.request('POST', `/2fa/2/pin/${pinId}/resend/voice`, { body: {} });
    assert.equal(byVoice.status, 200, JSON.stringify(byVoice.body));
    assert.equal(byVoice.body.callStatus, 'PENDING_ACCEPTED');
    assert.equal(await delivered(h, pinId), false);
    assert.equal((await verify(h, pinId, '909090')).body.verified, true);
  });

  it('sends by voice, WhatsApp, Telegram and email to a test number without delivering anything', async () => {
    const phone = freshPhone();
    await addTestNumber(h, phone, '313131');
    for (const path of ['/2fa/2/pin/voice', '/2fa/2/pin/whatsapp', '/2fa/2/pin/telegram']) {
      const sent = await h.request('POST', path, { body: { ...app, to: phone } });
      assert.equal(sent.status, 200, `${path}: ${JSON.stringify(sent.body)}`);
      assert.equal(await delivered(h, sent.body.pinId), false, path);
      assert.equal((await verify(h, sent.body.pinId, '313131')).body.verified, true, path);
    }

    const email = freshEmail();
    await addTestNumber(h, email, 'Mail42');
    const template = await h.request('POST', '/api/v1/email-templates', { body: { name: 'code', subject: 'Your code', text: 'Code: {{pin}}' } });
    assert.equal(template.status, 200, JSON.stringify(template.body));
    const message = await h.request('POST', `/2fa/2/applications/${app.applicationId}/email/messages`, { body: { pinType: 'NUMERIC', pinLength: 6, emailTemplateId: template.body.id } });
    assert.equal(message.status, 200, JSON.stringify(message.body));
    const sent = await h.request('POST', '/2fa/2/pin/email', { body: { applicationId: app.applicationId, messageId: message.body.messageId, to: email } });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.emailStatus.name, 'PENDING_ACCEPTED');
    assert.equal(await delivered(h, sent.body.pinId), false);
    const resent = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend/email`, { body: {} });
    assert.equal(resent.status, 200);
    assert.equal(await delivered(h, sent.body.pinId), false);
    assert.equal((await verify(h, sent.body.pinId, 'mail42')).body.pinError, 'WRONG_PIN', 'compared exactly, as any PIN');
    assert.equal((await verify(h, sent.body.pinId, 'Mail42')).body.verified, true);
  });

  it('locks after the last wrong attempt and expires as any PIN: the fixed code no longer verifies then', async () => {
    const phone = freshPhone();
    await addTestNumber(h, phone, '868686');
    const locked = (await h.request('POST', '/2fa/2/pin', { body: { ...app, to: phone } })).body.pinId as string;
    for (let i = 0; i < 3; i++) await verify(h, locked, '000000');
    const late = await verify(h, locked, '868686');
    assert.deepEqual([late.body.verified, late.body.pinError], [false, 'NO_MORE_PIN_ATTEMPTS']);

    const expiring = (await h.request('POST', '/2fa/2/pin', { body: { ...app, to: phone } })).body.pinId as string;
    h.clock.advance(16 * 60_000); // the application's default pinTimeToLive is 15 minutes
    const expired = await verify(h, expiring, '868686');
    assert.deepEqual([expired.body.verified, expired.body.pinError], [false, 'TTL_EXPIRED']);
  });

  it('applies the send limits as to any destination (no way around them), with Retry-After', async () => {
    const limited = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '2/1d' } });
    const phone = freshPhone();
    await addTestNumber(h, phone, '202020');
    for (let i = 0; i < 2; i++) assert.equal((await h.request('POST', '/2fa/2/pin', { body: { ...limited, to: phone } })).status, 200);
    const refused = await h.request('POST', '/2fa/2/pin', { body: { ...limited, to: phone } });
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers['retry-after']) > 0);
  });

  it('marks test traffic in the audit log and the events, and counts it apart in the statistics', async () => {
    const webhook = await h.request('POST', '/api/v1/webhooks', { body: { url: 'https://hooks.example.com/events', events: ['*'] } });
    assert.equal(webhook.status, 200, JSON.stringify(webhook.body));
    const statsBefore = (await h.request('GET', '/api/v1/stats')).body;

    const phone = freshPhone();
    await addTestNumber(h, phone, '717171');
    const test = (await h.request('POST', '/2fa/2/pin', { body: { ...app, to: phone } })).body.pinId as string;
    assert.equal((await verify(h, test, '717171')).body.verified, true);
    const real = (await h.request('POST', '/2fa/2/pin', { body: { ...app, to: freshPhone() } })).body.pinId as string;
    assert.equal((await verify(h, real, await deliveredPin(h, real))).body.verified, true);

    const audit = (await h.request('GET', `/api/v1/audit?pinId=${test}`)).body;
    const reasons = audit.entries.map((e: { event: string; reason: string }) => `${e.event} ${e.reason}`);
    assert.deepEqual(reasons, ['pin.send sms;test-number', 'pin.verify verified;test-number']);
    const realReasons = (await h.request('GET', `/api/v1/audit?pinId=${real}`)).body.entries.map((e: { reason: string }) => e.reason);
    assert.equal(realReasons.some((r: string) => r.includes('test-number')), false);

    const events = await (h.node.store as KyselyStore).db.selectFrom('event_outbox').select(['pin_id', 'event_type', 'payload']).where('pin_id', 'in', [test, real]).execute();
    const verifiedOf = (pinId: string) => JSON.parse(events.find((e) => e.pin_id === pinId && e.event_type === 'pin.verified')!.payload).data;
    assert.equal(verifiedOf(test).testNumber, true);
    assert.equal('testNumber' in verifiedOf(real), false);
    assert.equal(events.some((e) => e.pin_id === test && e.event_type === 'pin.sent'), false, 'nothing sent');

    const stats = (await h.request('GET', '/api/v1/stats')).body;
    assert.equal(stats.totals.sends - statsBefore.totals.sends, 1, 'the real send only');
    assert.equal(stats.totals.verifications - statsBefore.totals.verifications, 1);
    assert.equal(stats.testNumbers.sent - statsBefore.testNumbers.sent, 1);
    assert.equal(stats.testNumbers.verified - statsBefore.testNumbers.verified, 1);
    const sentByChannel = (s: typeof stats) => s.conversion.byChannel.reduce((n: number, c: { sent: number }) => n + c.sent, 0);
    assert.equal(sentByChannel(stats) - sentByChannel(statsBefore), 1);
    assert.equal((await h.request('DELETE', `/api/v1/webhooks/${webhook.body.id}`)).status, 204);
  });

  it('delivers again once the number is removed; a PIN sent while it was listed stays undelivered', async () => {
    const phone = freshPhone();
    const id = await addTestNumber(h, phone, '606060');
    const before = (await h.request('POST', '/2fa/2/pin', { body: { ...app, to: phone } })).body.pinId as string;
    assert.equal((await h.request('DELETE', `/api/v1/test-numbers/${id}`)).status, 204);
    assert.equal((await h.request('POST', `/2fa/2/pin/${before}/resend`, { body: {} })).status, 200);
    assert.equal(await delivered(h, before), false);
    const after = await h.request('POST', '/2fa/2/pin', { body: { ...app, to: phone } });
    assert.equal((await h.request('GET', `/api/v1/pins/${after.body.pinId}`)).body.testNumber, false);
    assert.equal((await verify(h, after.body.pinId, await deliveredPin(h, after.body.pinId))).body.verified, true);
  });
});

describe('test numbers under the strict security profile', () => {
  it('are refused, and an existing one is ignored by sends, unless TWOFA_ALLOW_TEST_NUMBERS is set', async () => {
    const h = await createHarness({ TWOFA_SECURITY_PROFILE: 'strict' });
    try {
      const refused = await h.request('POST', '/api/v1/test-numbers', { body: { destination: freshPhone(), code: '123456' } });
      assert.equal(refused.status, 403);
      assert.match(refused.body.requestError.serviceException.text, /TWOFA_ALLOW_TEST_NUMBERS/);
      // One kept from before the switch to strict: sends deliver a random PIN to it, as to any number.
      const phone = freshPhone();
      const accountId = await accountOf(h, h.keys.a);
      const keyring = new PinKeyring(HARNESS_SECRET);
      await h.node.store.testNumbers.add({ id: 'KEPT', accountId, destination: phone, codeCiphertext: keyring.encryptPin('test-number:KEPT', '123456'), createdAt: h.clock.now });
      assert.equal((await h.request('GET', '/api/v1/test-numbers')).body.length, 1, 'still listed, so it can be removed');
      const app = await createAppAndTemplate(h);
      const sent = await h.request('POST', '/2fa/2/pin', { body: { ...app, to: phone } });
      assert.equal(sent.status, 200);
      assert.equal((await h.request('GET', `/api/v1/pins/${sent.body.pinId}`)).body.testNumber, false);
      const pin = await deliveredPin(h, sent.body.pinId);
      assert.equal((await verify(h, sent.body.pinId, pin)).body.verified, true);
      assert.equal((await h.request('DELETE', '/api/v1/test-numbers/KEPT')).status, 204);
    } finally {
      await h.close();
    }
  });

  it('are allowed with TWOFA_ALLOW_TEST_NUMBERS=true, with codes of at least 6 characters', async () => {
    const h = await createHarness({ TWOFA_SECURITY_PROFILE: 'strict', TWOFA_ALLOW_TEST_NUMBERS: 'true' });
    try {
      const short = await h.request('POST', '/api/v1/test-numbers', { body: { destination: freshPhone(), code: '1234' } });
      assert.equal(short.status, 400);
      const phone = freshPhone();
      await addTestNumber(h, phone, '123456');
      const app = await createAppAndTemplate(h);
      const sent = await h.request('POST', '/2fa/2/pin', { body: { ...app, to: phone } });
      assert.equal(sent.status, 200);
      assert.equal(await delivered(h, sent.body.pinId), false);
      assert.equal((await verify(h, sent.body.pinId, '123456')).body.verified, true);
    } finally {
      await h.close();
    }
  });
});
