// The start parameters that change what is sent, through Twilio's official Node SDK: CustomCode,
// AppHash (the SMS autofill line), Amount/Payee (PSD2), ChannelConfiguration (the email sender),
// the locale of the number's country without Locale, and 60212 for starts to one number at once.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import twilio from 'twilio';
import type { InboxMessage } from '../../src/delivery/log/inbox.js';
import { authenticate } from '../../src/service/api-keys.js';
import { createHarness, type Harness } from '../support/harness.js';
import { freshEmail, freshPhone } from '../support/http-assertions.js';
import { RecordingClient, rejectsWith } from './sdk-support.js';

/** The official SDK, listening harness `h`'s node and authenticated with its key `a`. */
async function sdkClientOf(h: Harness): Promise<twilio.Twilio> {
  await h.node.app.listen({ port: 0, host: '127.0.0.1' });
  const accountSid = (await h.request('GET', '/api/v1/me')).body.accountSid as string;
  const client = twilio(accountSid, h.keys.a, { httpClient: new RecordingClient({ keepAlive: false }) });
  client.verify.baseUrl = `http://127.0.0.1:${(h.node.app.server.address() as AddressInfo).port}`;
  return client;
}

describe('Twilio Verify start behaviours through the official Node SDK', () => {
  let h: Harness;
  let client: twilio.Twilio;
  let accountId: string;

  before(async () => {
    h = await createHarness();
    client = await sdkClientOf(h);
    accountId = (await authenticate(h.node.store, `App ${h.keys.a}`))!.accountId;
  });
  after(async () => { await h.close(); });

  async function sent(verificationSid: string): Promise<InboxMessage> {
    await h.node.worker.drain();
    const message = h.node.inbox.list(accountId, { limit: 1000 }).find((m) => m.pinId === verificationSid.slice(2).toUpperCase());
    assert.ok(message, `a message for ${verificationSid}`);
    return message;
  }

  it('sends the CustomCode of a service with CustomCodeEnabled, checks it, and ignores it elsewhere', async () => {
    const custom = await client.verify.v2.services.create({ friendlyName: 'Custom', customCodeEnabled: true });
    const to = `+${freshPhone()}`;
    const started = await client.verify.v2.services(custom.sid).verifications.create({ to, channel: 'sms', customCode: '48213579' });
    assert.match((await sent(started.sid)).text!, /code is: 48213579\./);
    assert.equal((await client.verify.v2.services(custom.sid).verificationChecks.create({ to, code: '48213579' })).status, 'approved');
    await rejectsWith(client.verify.v2.services(custom.sid).verifications.create({ to, channel: 'sms', customCode: '12' }), 400, 60200);

    const plain = await client.verify.v2.services.create({ friendlyName: 'Plain' });
    const other = await client.verify.v2.services(plain.sid).verifications.create({ to, channel: 'sms', customCode: '48213579' });
    assert.doesNotMatch((await sent(other.sid)).text!, /48213579/);
  });

  it('puts the AppHash on the SMS\'s own autofill line', async () => {
    const service = await client.verify.v2.services.create({ friendlyName: 'Android' });
    const started = await client.verify.v2.services(service.sid).verifications.create({ to: `+${freshPhone()}`, channel: 'sms', appHash: 'FA+9qCX9VSu' });
    assert.match((await sent(started.sid)).text!, /^Your Android verification code is: \d{6}\.\n\nFA\+9qCX9VSu$/);
    await rejectsWith(client.verify.v2.services(service.sid).verifications.create({ to: `+${freshPhone()}`, channel: 'sms', appHash: 'short' }), 400, 60200);
  });

  it('requires Amount and Payee on a PSD2 service (60206), refuses the call channel (60214), names them in the message and checks them', async () => {
    const service = await client.verify.v2.services.create({ friendlyName: 'Bank', psd2Enabled: true });
    const verify = client.verify.v2.services(service.sid);
    const to = `+${freshPhone()}`;
    await rejectsWith(verify.verifications.create({ to, channel: 'sms' }), 400, 60206);
    await rejectsWith(verify.verifications.create({ to, channel: 'sms', amount: '€12.45' }), 400, 60206);
    await rejectsWith(verify.verifications.create({ to, channel: 'call', amount: '€12.45', payee: 'Acme' }), 400, 60214);
    const started = await verify.verifications.create({ to, channel: 'sms', amount: '€12.45', payee: 'Acme' });
    assert.equal(started.amount, '€12.45');
    assert.equal(started.payee, 'Acme');
    const text = (await sent(started.sid)).text!;
    assert.match(text, /^Your Bank verification code is: \d{6}\. Amount: €12\.45\. Payee: Acme\.$/);
    const code = /code is: (\d{6})/.exec(text)![1]!;
    await rejectsWith(verify.verificationChecks.create({ to, code, amount: '€12.45', payee: 'Mallory' }), 400, 60200);
    await rejectsWith(verify.verificationChecks.create({ to, code }), 400, 60200);
    const checked = await verify.verificationChecks.create({ to, code, amount: '€12.45', payee: 'Acme' });
    assert.equal(checked.status, 'approved');
    assert.equal(checked.payee, 'Acme');
  });

  it('PSD2: a start to the same number for another Amount or Payee ends the pending verification; its code approves only the transaction it was shown for', async () => {
    const service = await client.verify.v2.services.create({ friendlyName: 'Bank', psd2Enabled: true });
    const verify = client.verify.v2.services(service.sid);
    const to = `+${freshPhone()}`;
    const codeOf = async (sid: string) => /code is: (\d{6})\. Amount: (.*)\. Payee: (.*)\.$/.exec((await sent(sid)).text!)!.slice(1);
    const large = await verify.verifications.create({ to, channel: 'sms', amount: '1000 EUR', payee: 'Mallory' });
    const [largeCode] = await codeOf(large.sid);
    const again = await verify.verifications.create({ to, channel: 'sms', amount: '1000 EUR', payee: 'Mallory' });
    assert.equal(again.sid, large.sid, 'the same transaction again: the same verification and code');

    const small = await verify.verifications.create({ to, channel: 'sms', amount: '10 EUR', payee: 'Alice' });
    assert.notEqual(small.sid, large.sid, 'another transaction is another verification');
    assert.deepEqual([small.amount, small.payee, small.sendCodeAttempts.length], ['10 EUR', 'Alice', 1]);
    const [smallCode, amount, payee] = await codeOf(small.sid);
    assert.deepEqual([amount, payee], ['10 EUR', 'Alice'], 'the message names the transaction its code confirms');
    assert.equal((await verify.verifications(large.sid).fetch()).status, 'canceled');

    // The code shown for 10 EUR to Alice never approves 1000 EUR to Mallory, by To or by the first verification's SID.
    await rejectsWith(verify.verificationChecks.create({ to, code: smallCode!, amount: '1000 EUR', payee: 'Mallory' }), 400, 60200);
    await rejectsWith(verify.verificationChecks.create({ verificationSid: large.sid, code: smallCode!, amount: '1000 EUR', payee: 'Mallory' }), 404, 20404);
    await rejectsWith(verify.verificationChecks.create({ verificationSid: large.sid, code: largeCode!, amount: '1000 EUR', payee: 'Mallory' }), 404, 20404);
    const checked = await verify.verificationChecks.create({ to, code: smallCode!, amount: '10 EUR', payee: 'Alice' });
    assert.deepEqual([checked.sid, checked.status], [small.sid, 'approved']);
  });

  it('sends email from the ChannelConfiguration\'s from and from_name, and refuses one that is not a JSON object', async () => {
    const service = await client.verify.v2.services.create({ friendlyName: 'Mailer' });
    const started = await client.verify.v2.services(service.sid).verifications.create({
      to: freshEmail(), channel: 'email', channelConfiguration: { from: 'noreply@acme.example', from_name: 'Acme Bank', substitutions: { name: 'Ann' } },
    });
    assert.equal((await sent(started.sid)).from, 'Acme Bank <noreply@acme.example>');
    const e = await rejectsWith(client.verify.v2.services(service.sid).verifications.create({ to: freshEmail(), channel: 'email', channelConfiguration: { from: 'not an address' } }), 400, 60200);
    assert.equal(e.message, 'Invalid parameter: ChannelConfiguration');
  });

  it('speaks the language of the number\'s country without Locale, English where the country has several', async () => {
    const service = await client.verify.v2.services.create({ friendlyName: 'Global' });
    const french = await client.verify.v2.services(service.sid).verifications.create({ to: '+33612345678', channel: 'sms' });
    assert.match((await sent(french.sid)).text!, /^Votre code de vérification Global est : \d{6}\.$/);
    const swiss = await client.verify.v2.services(service.sid).verifications.create({ to: `+${freshPhone()}`, channel: 'sms' });
    assert.match((await sent(swiss.sid)).text!, /^Your Global verification code is: \d{6}\.$/);
    const asked = await client.verify.v2.services(service.sid).verifications.create({ to: '+33612345679', channel: 'sms', locale: 'en' });
    assert.match((await sent(asked.sid)).text!, /^Your Global verification code is/);
  });

  it('answers 60212 to starts to one number at the same time, never making a second verification', async () => {
    const service = await client.verify.v2.services.create({ friendlyName: 'Busy' });
    const to = `+${freshPhone()}`;
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => client.verify.v2.services(service.sid).verifications.create({ to, channel: 'sms' })));
    const sids = new Set<string>();
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') sids.add(outcome.value.sid);
      else assert.deepEqual([(outcome.reason as { status: number }).status, (outcome.reason as { code: number }).code], [429, 60212]);
    }
    assert.equal(sids.size, 1, 'one verification, however the starts interleave');
    // Once the starts are done, the next one is a repeated start of that verification.
    const again = await client.verify.v2.services(service.sid).verifications.create({ to, channel: 'sms' });
    assert.ok(sids.has(again.sid));
  });
});

describe('Twilio Verify CustomCode under TWOFA_SECURITY_PROFILE=strict', () => {
  let h: Harness;
  let client: twilio.Twilio;

  before(async () => {
    h = await createHarness({ TWOFA_SECURITY_PROFILE: 'strict' });
    client = await sdkClientOf(h);
  });
  after(async () => { await h.close(); });

  it('refuses a CustomCode shorter than the profile\'s 6-character floor (60200 on CustomCode) and sends one that meets it', async () => {
    const service = await client.verify.v2.services.create({ friendlyName: 'Strict', customCodeEnabled: true, codeLength: 6 });
    const verify = client.verify.v2.services(service.sid);
    for (const customCode of ['1234', 'AB12C']) {
      const e = await rejectsWith(verify.verifications.create({ to: `+${freshPhone()}`, channel: 'sms', customCode }), 400, 60200);
      assert.equal(e.message, 'Invalid parameter: CustomCode');
    }
    const to = `+${freshPhone()}`;
    const started = await verify.verifications.create({ to, channel: 'sms', customCode: '482135' });
    assert.equal(started.status, 'pending');
    assert.equal((await verify.verificationChecks.create({ to, code: '482135' })).status, 'approved');
  });
});
