// Sending PINs (/2fa/2/pin, /pin/voice, /pin/email), resending them, and the send limits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { MISSING_ID, assertEnvelope, assertFieldError, assertRetryAfter, createEmailMessage, forbid5xx, freshEmail, freshPhone, inboxFor } from '../support/http-assertions.js';

describe('sending and resending PINs', () => {
  let h: Harness;
  let sms: { applicationId: string; messageId: string };
  before(async () => {
    h = forbid5xx(await createHarness());
    sms = await createAppAndTemplate(h);
  });
  after(async () => { await h.close(); });

  const send = (body: Record<string, unknown>, path = '/2fa/2/pin', key?: string) => h.request('POST', path, { body, ...(key ? { key } : {}) });

  describe('SMS', () => {
    it('answers pinId, to, ncStatus NC_NOT_CONFIGURED and smsStatus MESSAGE_SENT, and delivers the rendered message', async () => {
      const to = freshPhone();
      const res = await send({ ...sms, to });
      assert.equal(res.status, 200);
      assert.match(res.body.pinId, /^[0-9A-F]{32}$/);
      assert.deepEqual(res.body, { pinId: res.body.pinId, to, ncStatus: 'NC_NOT_CONFIGURED', smsStatus: 'MESSAGE_SENT' });
      const inbox = await inboxFor(h, to);
      assert.equal(inbox.length, 1);
      assert.equal(inbox[0]!.channel, 'sms');
      assert.equal(inbox[0]!.pinId, res.body.pinId);
      assert.equal(inbox[0]!.from, 'Acme', 'the template senderId is the sender');
      assert.match(inbox[0]!.text ?? '', /^Your code is \d{6}$/);
      assert.deepEqual(await inboxFor(h, to, h.keys.b), [], "another account's inbox does not show the message");
    });

    it('every send makes a new pinId', async () => {
      const to = freshPhone();
      const one = await send({ ...sms, to });
      const two = await send({ ...sms, to });
      assert.notEqual(one.body.pinId, two.body.pinId);
    });

    it('?ncNeeded=false leaves ncStatus out; ncNeeded=true and the literal "undefined" keep it', async () => {
      const off = await h.request('POST', '/2fa/2/pin?ncNeeded=false', { body: { ...sms, to: freshPhone() } });
      assert.equal(off.status, 200);
      assert.deepEqual(Object.keys(off.body).sort(), ['pinId', 'smsStatus', 'to']);
      for (const value of ['true', 'undefined']) {
        const on = await h.request('POST', `/2fa/2/pin?ncNeeded=${value}`, { body: { ...sms, to: freshPhone() } });
        assert.equal(on.status, 200, `ncNeeded=${value}: ${JSON.stringify(on.body)}`);
        assert.equal(on.body.ncStatus, 'NC_NOT_CONFIGURED');
      }
    });

    it('tolerates the trailing slash the Node SDK sends (/2fa/2/pin/?ncNeeded=false)', async () => {
      const to = freshPhone();
      const res = await h.request('POST', '/2fa/2/pin/?ncNeeded=false', { body: { ...sms, to } });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { pinId: res.body.pinId, to, smsStatus: 'MESSAGE_SENT' });
    });

    it('trackDelivery true adds an externalMessageId; false leaves it out', async () => {
      const tracked = await send({ ...sms, to: freshPhone(), trackDelivery: true });
      assert.equal(tracked.status, 200);
      assert.deepEqual(Object.keys(tracked.body).sort(), ['externalMessageId', 'ncStatus', 'pinId', 'smsStatus', 'to']);
      assert.equal(typeof tracked.body.externalMessageId, 'string');
      assert.ok(tracked.body.externalMessageId.length > 0);
      const untracked = await send({ ...sms, to: freshPhone(), trackDelivery: false });
      assert.ok(!('externalMessageId' in untracked.body));
    });

    it('`from` overrides the template senderId', async () => {
      const to = freshPhone();
      const res = await send({ ...sms, to, from: 'Override' });
      assert.equal(res.status, 200);
      const [message] = await inboxFor(h, to);
      assert.equal(message!.from, 'Override');
    });

    it('a leading + on the number is accepted and the answer names the number without it', async () => {
      const to = freshPhone();
      const res = await send({ ...sms, to: `+${to}` });
      assert.equal(res.status, 200);
      assert.equal(res.body.to, to);
    });

    it('renders placeholders into the message', async () => {
      const app = await createAppAndTemplate(h, { template: { messageText: 'Hello {{firstName}} {{lastName}}, your code is {{pin}}' } });
      const to = freshPhone();
      const res = await send({ ...app, to, placeholders: { firstName: 'John', lastName: 'Smith', unused: 'ignored' } });
      assert.equal(res.status, 200);
      const [message] = await inboxFor(h, to);
      assert.match(message!.text ?? '', /^Hello John Smith, your code is \d{6}$/);
    });

    it('a placeholder value is inserted literally, never expanded into the PIN', async () => {
      const app = await createAppAndTemplate(h, { template: { messageText: 'Hi {{name}}, code {{pin}}' } });
      const to = freshPhone();
      assert.equal((await send({ ...app, to, placeholders: { name: '{{pin}}' } })).status, 200);
      const [message] = await inboxFor(h, to);
      assert.match(message!.text ?? '', /^Hi \{\{pin\}\}, code \d{6}$/);
    });

    it('a placeholder the template uses but the request leaves out is a 400, and nothing is sent', async () => {
      const app = await createAppAndTemplate(h, { template: { messageText: 'Hello {{firstName}}, your code is {{pin}}' } });
      const to = freshPhone();
      assertFieldError(await send({ ...app, to }), 'placeholders');
      assertFieldError(await send({ ...app, to, placeholders: { lastName: 'Smith' } }), 'placeholders');
      assert.deepEqual(await inboxFor(h, to), []);
      const status = await h.request('GET', `/2fa/2/applications/${app.applicationId}/verifications?msisdn=${to}`);
      assert.deepEqual(status.body, { verifications: [] }, 'no PIN was created');
    });

    it('placeholder keys `pin` or with braces are refused', async () => {
      const to = freshPhone();
      assertFieldError(await send({ ...sms, to, placeholders: { pin: '1234' } }), 'placeholders.pin');
      assertFieldError(await send({ ...sms, to, placeholders: { '{{name}}': 'x' } }), 'placeholders.{{name}}');
      assertFieldError(await send({ ...sms, to, placeholders: { '{name}': 'x' } }), 'placeholders.{name}');
      assertEnvelope(await send({ ...sms, to, placeholders: { name: 5 } }), 400, 'BAD_REQUEST');
      assertEnvelope(await send({ ...sms, to, placeholders: ['x'] }), 400, 'BAD_REQUEST');
      assert.deepEqual(await inboxFor(h, to), []);
    });

    it('refuses an invalid `from`, too many placeholders and over-long values', async () => {
      const to = freshPhone();
      assertFieldError(await send({ ...sms, to, from: 'TwelveChars!' }), 'from');
      assertFieldError(await send({ ...sms, to, from: '' }), 'from');
      const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
      assertFieldError(await send({ ...sms, to, placeholders: many }), 'placeholders');
      assertFieldError(await send({ ...sms, to, placeholders: { name: 'x'.repeat(1001) } }), 'placeholders.name');
      assert.deepEqual(await inboxFor(h, to), []);
    });

    it('an invalid `to` is a 400 on validationErrors.to', async () => {
      for (const to of ['abcdefghij', '4179', '+41 79 302 67 27', '41-79-302-67-27', '0041793026727', '0793026727', 'john.smith@example.com', '', '4179302672712345678', '41793026727\n']) {
        assertFieldError(await send({ ...sms, to }), 'to');
      }
      assertFieldError(await send({ ...sms, to: 41793026727 }), 'to');
      assertFieldError(await send({ applicationId: sms.applicationId, messageId: sms.messageId }), 'to');
    });

    it('an unknown applicationId or messageId is a 400 naming the field', async () => {
      assertFieldError(await send({ applicationId: MISSING_ID, messageId: sms.messageId, to: freshPhone() }), 'applicationId');
      assertFieldError(await send({ applicationId: sms.applicationId, messageId: MISSING_ID, to: freshPhone() }), 'messageId');
      assertFieldError(await send({ messageId: sms.messageId, to: freshPhone() }), 'applicationId');
      assertFieldError(await send({ applicationId: sms.applicationId, to: freshPhone() }), 'messageId');
    });

    it("another account's application or template is as unknown as a missing one", async () => {
      const ofB = await createAppAndTemplate(h, { key: h.keys.b });
      const to = freshPhone();
      const foreignApp = await send({ ...ofB, to });
      const missingApp = await send({ applicationId: MISSING_ID, messageId: ofB.messageId, to });
      assertFieldError(foreignApp, 'applicationId');
      assert.equal(JSON.stringify(foreignApp.body).replaceAll(ofB.applicationId, '<id>'), JSON.stringify(missingApp.body).replaceAll(MISSING_ID, '<id>'));
      const foreignMessage = await send({ applicationId: sms.applicationId, messageId: ofB.messageId, to });
      const missingMessage = await send({ applicationId: sms.applicationId, messageId: MISSING_ID, to });
      assertFieldError(foreignMessage, 'messageId');
      assert.equal(JSON.stringify(foreignMessage.body).replaceAll(ofB.messageId, '<id>'), JSON.stringify(missingMessage.body).replaceAll(MISSING_ID, '<id>'));
      assert.deepEqual(await inboxFor(h, to, h.keys.b), []);
    });

    it('a disabled application cannot send', async () => {
      const app = await createAppAndTemplate(h);
      const put = await h.request('PUT', `/2fa/2/applications/${app.applicationId}`, { body: { name: 'off', enabled: false } });
      assert.equal(put.body.enabled, false);
      const to = freshPhone();
      assertFieldError(await send({ ...app, to }), 'applicationId');
      assertFieldError(await send({ ...app, to }, '/2fa/2/pin/voice'), 'applicationId');
      assert.deepEqual(await inboxFor(h, to), []);
    });

    it('an email message cannot be sent by SMS or voice, nor an SMS template by email', async () => {
      const email = await createEmailMessage(h, sms.applicationId);
      assertFieldError(await send({ applicationId: sms.applicationId, messageId: email.messageId, to: freshPhone() }), 'messageId');
      assertFieldError(await send({ applicationId: sms.applicationId, messageId: email.messageId, to: freshPhone() }, '/2fa/2/pin/voice'), 'messageId');
      assertFieldError(await send({ ...sms, to: freshEmail() }, '/2fa/2/pin/email'), 'messageId');
    });

    it('generates PINs of the template alphabet and length', async () => {
      const alphabets: Record<string, RegExp> = { NUMERIC: /^[0-9]+$/, ALPHA: /^[A-Z]+$/, HEX: /^[0-9A-F]+$/, ALPHANUMERIC: /^[0-9A-Z]+$/ };
      for (const [pinType, pattern] of Object.entries(alphabets)) {
        for (const pinLength of [4, 8, 16]) {
          const app = await createAppAndTemplate(h, { template: { pinType, pinLength } });
          const res = await send({ ...app, to: freshPhone() });
          assert.equal(res.status, 200);
          const pin = await deliveredPin(h, res.body.pinId);
          assert.equal(pin.length, pinLength, `${pinType}/${pinLength}: ${pin}`);
          assert.match(pin, pattern, `${pinType}/${pinLength}: ${pin}`);
        }
      }
    });
  });

  describe('voice', () => {
    it('answers callStatus PENDING_ACCEPTED and no SMS fields; the inbox gets a voice message', async () => {
      const to = freshPhone();
      const res = await send({ ...sms, to }, '/2fa/2/pin/voice');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { pinId: res.body.pinId, to, callStatus: 'PENDING_ACCEPTED' });
      const [message] = await inboxFor(h, to);
      assert.equal(message!.channel, 'voice');
      assert.equal(message!.pinId, res.body.pinId);
    });

    it('ncNeeded has no effect on voice, and trackDelivery adds externalMessageId', async () => {
      const res = await send({ ...sms, to: freshPhone(), trackDelivery: true }, '/2fa/2/pin/voice?ncNeeded=true');
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['callStatus', 'externalMessageId', 'pinId', 'to']);
    });

    it('validates `to` like SMS', async () => {
      assertFieldError(await send({ ...sms, to: 'call me' }, '/2fa/2/pin/voice'), 'to');
    });
  });

  describe('email', () => {
    let email: { applicationId: string; messageId: string };
    before(async () => {
      const app = await createAppAndTemplate(h);
      email = { applicationId: app.applicationId, messageId: (await createEmailMessage(h, app.applicationId, { template: { subject: 'Your code {{pin}}', text: 'Hello {{firstName}}, code {{pin}}', from: 'Acme <no-reply@acme.example>' } })).messageId };
    });

    it('answers emailStatus PENDING_ACCEPTED and delivers subject and text with the PIN', async () => {
      const to = freshEmail();
      const res = await send({ ...email, to, placeholders: { firstName: 'John' }, landingPagePlaceholders: { name: 'John', surname: 'Smith' } }, '/2fa/2/pin/email');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { pinId: res.body.pinId, to, emailStatus: { name: 'PENDING_ACCEPTED', description: 'Message accepted, pending for delivery.' } });
      const [message] = await inboxFor(h, to);
      assert.equal(message!.channel, 'email');
      assert.equal(message!.from, 'Acme <no-reply@acme.example>');
      const pin = /^Hello John, code (\d{4})$/.exec(message!.text ?? '')?.[1];
      assert.ok(pin, `text ${message!.text}`);
      assert.equal(message!.subject, `Your code ${pin}`);
    });

    it('`from` overrides the sender', async () => {
      const to = freshEmail();
      const res = await send({ ...email, to, from: 'Jane <jane@example.com>', placeholders: { firstName: 'J' } }, '/2fa/2/pin/email');
      assert.equal(res.status, 200);
      const [message] = await inboxFor(h, to);
      assert.equal(message!.from, 'Jane <jane@example.com>');
      assertFieldError(await send({ ...email, to, from: 'a@b.com\r\nBcc: c@d.com', placeholders: { firstName: 'J' } }, '/2fa/2/pin/email'), 'from');
    });

    it('placeholder values are HTML-escaped in the html body and kept as given in the text', async () => {
      const target = await createAppAndTemplate(h);
      const { messageId } = await createEmailMessage(h, target.applicationId, { template: { subject: 'Code', html: '<p>Hi {{name}}, code <b>{{pin}}</b></p>', text: 'Hi {{name}}, code {{pin}}' } });
      const to = freshEmail();
      const res = await send({ applicationId: target.applicationId, messageId, to, placeholders: { name: '<script>alert("x")</script>' } }, '/2fa/2/pin/email');
      assert.equal(res.status, 200);
      const [message] = await inboxFor(h, to);
      assert.match(message!.html ?? '', /^<p>Hi &lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;, code <b>\d{4}<\/b><\/p>$/);
      assert.match(message!.text ?? '', /^Hi <script>alert\("x"\)<\/script>, code \d{4}$/);
    });

    it("the message's `from` overrides the email template's, and the request's overrides both", async () => {
      const target = await createAppAndTemplate(h);
      const { messageId } = await createEmailMessage(h, target.applicationId, { template: { from: 'template@example.com' }, message: { from: 'Message <message@example.com>' } });
      const first = freshEmail();
      assert.equal((await send({ applicationId: target.applicationId, messageId, to: first }, '/2fa/2/pin/email')).status, 200);
      assert.equal((await inboxFor(h, first))[0]!.from, 'Message <message@example.com>');
      const second = freshEmail();
      assert.equal((await send({ applicationId: target.applicationId, messageId, to: second, from: 'request@example.com' }, '/2fa/2/pin/email')).status, 200);
      assert.equal((await inboxFor(h, second))[0]!.from, 'request@example.com');
    });

    it('a placeholder the email template uses but the request leaves out is a 400', async () => {
      const to = freshEmail();
      assertFieldError(await send({ ...email, to }, '/2fa/2/pin/email'), 'placeholders');
      assert.deepEqual(await inboxFor(h, to), []);
    });

    it('refuses a phone number, a header injection and other non-addresses on validationErrors.to', async () => {
      for (const to of ['41793026727', 'a@b.com\r\nBcc: c@d.com', 'a@b.com\nBcc: c@d.com', 'John <john@example.com>', 'a@b.com,c@d.com', 'no-at.example.com', 'a@b', '']) {
        assertFieldError(await send({ ...email, to, placeholders: { firstName: 'J' } }, '/2fa/2/pin/email'), 'to');
      }
    });
  });

  describe('resend', () => {
    it('delivers the same PIN again under the same pinId', async () => {
      const to = freshPhone();
      const sent = await send({ ...sms, to });
      const resent = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { body: {} });
      assert.equal(resent.status, 200);
      assert.equal(resent.body.pinId, sent.body.pinId);
      assert.equal(resent.body.to, to);
      assert.equal(resent.body.smsStatus, 'MESSAGE_SENT');
      assert.ok(!('callStatus' in resent.body) && !('emailStatus' in resent.body));
      const inbox = await inboxFor(h, to);
      assert.equal(inbox.length, 2);
      assert.equal(inbox[0]!.pinId, sent.body.pinId);
      assert.equal(inbox[1]!.pinId, sent.body.pinId);
      assert.equal(inbox[0]!.text, inbox[1]!.text, 'the same PIN');
    });

    it('accepts {}, an empty JSON body, no body at all and {"trackDelivery":false}', async () => {
      const to = freshPhone();
      const { pinId } = (await send({ ...sms, to })).body;
      const url = `/2fa/2/pin/${pinId}/resend`;
      const variants = [
        await h.request('POST', url, { body: {} }),
        await h.request('POST', url, { rawBody: '', headers: { 'content-type': 'application/json' } }),
        await h.request('POST', url, { rawBody: '   ', headers: { 'content-type': 'application/json' } }),
        await h.request('POST', url),
        await h.request('POST', url, { body: { trackDelivery: false } }),
        await h.request('POST', url, { body: { placeholders: {}, trackDelivery: null } }),
      ];
      for (const [i, res] of variants.entries()) {
        assert.equal(res.status, 200, `variant ${i}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.pinId, pinId);
        assert.ok(!('externalMessageId' in res.body));
      }
      const tracked = await h.request('POST', url, { body: { trackDelivery: true } });
      assert.equal(typeof tracked.body.externalMessageId, 'string');
      const inbox = await inboxFor(h, to);
      assert.equal(inbox.length, 1 + variants.length + 1);
      assert.equal(new Set(inbox.map((m) => m.text)).size, 1);
    });

    it('a PIN sent by SMS can be resent by voice, with the same PIN', async () => {
      const to = freshPhone();
      const sent = await send({ ...sms, to });
      // Delivered before the resend is queued: deliveries run concurrently and, on PostgreSQL, may
      // finish in any order, and this test reads the order of the inbox.
      await h.node.worker.drain();
      const voice = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend/voice`, { body: {} });
      assert.equal(voice.status, 200);
      assert.deepEqual(voice.body, { pinId: sent.body.pinId, to, callStatus: 'PENDING_ACCEPTED' });
      const inbox = await inboxFor(h, to);
      assert.deepEqual(inbox.map((m) => m.channel), ['voice', 'sms']);
      const digits = inbox.map((m) => /(\d{6})$/.exec(m.text ?? '')?.[1]);
      assert.ok(digits[0] && digits[0] === digits[1], `same PIN in ${JSON.stringify(inbox.map((m) => m.text))}`);
    });

    it('resend fills the placeholders it is given', async () => {
      const app = await createAppAndTemplate(h, { template: { messageText: 'Hi {{name}}, code {{pin}}' } });
      const to = freshPhone();
      const sent = await send({ ...app, to, placeholders: { name: 'Ann' } });
      assertFieldError(await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { body: {} }), 'placeholders');
      await h.node.worker.drain();
      const resent = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { body: { placeholders: { name: 'Bob' } } });
      assert.equal(resent.status, 200);
      const inbox = await inboxFor(h, to);
      assert.equal(inbox.length, 2);
      assert.match(inbox[0]!.text ?? '', /^Hi Bob, code \d{6}$/);
      assert.match(inbox[1]!.text ?? '', /^Hi Ann, code \d{6}$/);
      assertFieldError(await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { body: { placeholders: { pin: '1' } } }), 'placeholders.pin');
    });

    it('an email PIN is resent by email, and not by SMS or voice (and the other way round)', async () => {
      const app = await createAppAndTemplate(h);
      const { messageId } = await createEmailMessage(h, app.applicationId);
      const to = freshEmail();
      const sent = await send({ applicationId: app.applicationId, messageId, to }, '/2fa/2/pin/email');
      assert.equal(sent.status, 200);
      const again = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend/email`, { body: {} });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, { pinId: sent.body.pinId, to, emailStatus: { name: 'PENDING_ACCEPTED', description: 'Message accepted, pending for delivery.' } });
      assertEnvelope(await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { body: {} }), 400, 'BAD_REQUEST');
      assertEnvelope(await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend/voice`, { body: {} }), 400, 'BAD_REQUEST');
      const inbox = await inboxFor(h, to);
      assert.equal(inbox.length, 2);
      assert.equal(inbox[0]!.text, inbox[1]!.text);

      const smsPin = await send({ ...sms, to: freshPhone() });
      assertEnvelope(await h.request('POST', `/2fa/2/pin/${smsPin.body.pinId}/resend/email`, { body: {} }), 400, 'BAD_REQUEST');
    });

    it('a verified PIN cannot be resent', async () => {
      const to = freshPhone();
      const sent = await send({ ...sms, to });
      const pin = await deliveredPin(h, sent.body.pinId);
      const verified = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { body: { pin } });
      assert.equal(verified.body.verified, true);
      assertEnvelope(await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { body: {} }), 400, 'BAD_REQUEST');
      assertEnvelope(await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend/voice`, { body: {} }), 400, 'BAD_REQUEST');
      assert.equal((await inboxFor(h, to)).length, 1);
    });

    it('an expired PIN cannot be resent', async () => {
      const app = await createAppAndTemplate(h, { configuration: { pinTimeToLive: '1m' } });
      const sent = await send({ ...app, to: freshPhone() });
      h.clock.advance(61_000);
      assertEnvelope(await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { body: {} }), 400, 'BAD_REQUEST');
    });

    it('resend does not reset the attempts', async () => {
      const sent = await send({ ...sms, to: freshPhone() });
      const pin = await deliveredPin(h, sent.body.pinId);
      const wrong = pin === '000000' ? '111111' : '000000';
      const first = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { body: { pin: wrong } });
      assert.equal(first.body.attemptsRemaining, 9);
      assert.equal((await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { body: {} })).status, 200);
      const second = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { body: { pin: wrong } });
      assert.equal(second.body.attemptsRemaining, 8);
      assert.equal(second.body.pinError, 'WRONG_PIN');
    });

    it('an unknown pinId, or one of another account, is 404 on every resend', async () => {
      const ofB = await createAppAndTemplate(h, { key: h.keys.b });
      const foreign = await send({ ...ofB, to: freshPhone() }, '/2fa/2/pin', h.keys.b);
      assert.equal(foreign.status, 200);
      for (const suffix of ['resend', 'resend/voice', 'resend/email']) {
        const missing = await h.request('POST', `/2fa/2/pin/${MISSING_ID}/${suffix}`, { body: {} });
        const other = await h.request('POST', `/2fa/2/pin/${foreign.body.pinId}/${suffix}`, { body: {} });
        assertEnvelope(missing, 404, 'NOT_FOUND');
        assertEnvelope(other, 404, 'NOT_FOUND');
        assert.equal(JSON.stringify(other.body).replaceAll(foreign.body.pinId, '<id>'), JSON.stringify(missing.body).replaceAll(MISSING_ID, '<id>'));
      }
    });
  });

  describe('send limits', () => {
    it('sendPinPerPhoneNumberLimit: the send past the limit is a 429 with Retry-After, and allowed again after the window', async () => {
      const app = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '2/1d' } });
      const to = freshPhone();
      assert.equal((await send({ ...app, to })).status, 200);
      assert.equal((await send({ ...app, to }, '/2fa/2/pin/voice')).status, 200);
      const third = await send({ ...app, to });
      assertEnvelope(third, 429, 'TOO_MANY_REQUESTS');
      assertRetryAfter(third, 86_400);
      assertEnvelope(await send({ ...app, to }, '/2fa/2/pin/voice'), 429, 'TOO_MANY_REQUESTS');
      assert.equal((await inboxFor(h, to)).length, 2, 'nothing was sent past the limit');
      const status = await h.request('GET', `/2fa/2/applications/${app.applicationId}/verifications?msisdn=${to}`);
      assert.equal(status.body.verifications.length, 2, 'no PIN was created past the limit');

      assert.equal((await send({ ...app, to: freshPhone() })).status, 200, 'another number is not limited');

      h.clock.advance(86_400_000 + 60_000);
      assert.equal((await send({ ...app, to })).status, 200, 'allowed again once the window has passed');
    });

    it('"+41..." and "41..." are one destination for the per-number limit', async () => {
      const app = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '1/1d' } });
      const to = freshPhone();
      assert.equal((await send({ ...app, to })).status, 200);
      assertEnvelope(await send({ ...app, to: `+${to}` }), 429, 'TOO_MANY_REQUESTS');
    });

    it('Retry-After tells when the next send is accepted', async () => {
      const app = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '1/1m' } });
      const to = freshPhone();
      assert.equal((await send({ ...app, to })).status, 200);
      const refused = await send({ ...app, to });
      const seconds = assertRetryAfter(refused, 60);
      h.clock.advance(seconds * 1000);
      assert.equal((await send({ ...app, to })).status, 200);
    });

    it('sendPinPerApplicationLimit counts sends to every number of the application', async () => {
      const app = await createAppAndTemplate(h, { configuration: { sendPinPerApplicationLimit: '3/1h' } });
      for (let i = 0; i < 3; i += 1) assert.equal((await send({ ...app, to: freshPhone() })).status, 200);
      const refused = await send({ ...app, to: freshPhone() });
      assertEnvelope(refused, 429, 'TOO_MANY_REQUESTS');
      assertRetryAfter(refused, 3600);
      const other = await createAppAndTemplate(h, { configuration: { sendPinPerApplicationLimit: '3/1h' } });
      assert.equal((await send({ ...other, to: freshPhone() })).status, 200, 'another application is not limited');
    });

    it('concurrent sends never exceed the per-number limit', async () => {
      const app = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '3/1d' } });
      const to = freshPhone();
      const answers = await Promise.all(Array.from({ length: 12 }, () => send({ ...app, to })));
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 200, ...Array(9).fill(429)]);
      assert.equal((await inboxFor(h, to)).length, 3);
    });

    it('resends count against the per-number limit', async () => {
      const app = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '2/1d' } });
      const to = freshPhone();
      const sent = await send({ ...app, to });
      assert.equal((await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend`, { body: {} })).status, 200);
      const refused = await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/resend/voice`, { body: {} });
      assertEnvelope(refused, 429, 'TOO_MANY_REQUESTS');
      assertRetryAfter(refused, 86_400);
      assertEnvelope(await send({ ...app, to }), 429, 'TOO_MANY_REQUESTS');
      assert.equal((await inboxFor(h, to)).length, 2);
    });

    it('spellings of one mailbox (case, +tag) share the per-destination limit; delivery keeps the address as given', async () => {
      const app = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '1/1d' } });
      const email = { applicationId: app.applicationId, messageId: (await createEmailMessage(h, app.applicationId)).messageId };
      const mailbox = `victim${process.pid}`;
      const given = `Victim${process.pid}+first@example.com`;
      assert.equal((await send({ ...email, to: given }, '/2fa/2/pin/email')).status, 200);
      for (const to of [`${mailbox}@example.com`, `${mailbox.toUpperCase()}@EXAMPLE.COM`, `${mailbox}+1@example.com`, `${mailbox}+1+2@Example.com`]) {
        assertEnvelope(await send({ ...email, to }, '/2fa/2/pin/email'), 429, 'TOO_MANY_REQUESTS');
      }
      const [message] = await inboxFor(h, given);
      assert.equal(message!.to, given, 'delivered to the address as the client spelled it');
      assert.equal((await send({ ...email, to: `other${process.pid}@example.com` }, '/2fa/2/pin/email')).status, 200, 'another mailbox has its own budget');
    });

    it('spellings of one mailbox share verifyPinLimit', async () => {
      const app = await createAppAndTemplate(h, { configuration: { verifyPinLimit: '2/1d' } });
      const email = { applicationId: app.applicationId, messageId: (await createEmailMessage(h, app.applicationId)).messageId };
      const one = await send({ ...email, to: `mailbox${process.pid}@example.com` }, '/2fa/2/pin/email');
      const two = await send({ ...email, to: `Mailbox${process.pid}+2@example.com` }, '/2fa/2/pin/email');
      for (let i = 0; i < 2; i += 1) assert.equal((await h.request('POST', `/2fa/2/pin/${one.body.pinId}/verify`, { body: { pin: '0000' } })).status, 200);
      assertEnvelope(await h.request('POST', `/2fa/2/pin/${two.body.pinId}/verify`, { body: { pin: '0000' } }), 429, 'TOO_MANY_REQUESTS');
    });

    it('a malformed request is a 400 even when the limit is exhausted (validation comes before limits)', async () => {
      const app = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '1/1d', sendPinPerApplicationLimit: '1/1d' } });
      const to = freshPhone();
      assert.equal((await send({ ...app, to })).status, 200);
      assertEnvelope(await send({ ...app, to }), 429, 'TOO_MANY_REQUESTS');
      assertFieldError(await send({ ...app, to: 'not a number' }), 'to');
      assertFieldError(await send({ ...app, messageId: MISSING_ID, to }), 'messageId');
      assertFieldError(await send({ ...app, to, placeholders: { pin: 'x' } }), 'placeholders.pin');
      assertEnvelope(await h.request('POST', '/2fa/2/pin', { rawBody: '{"applicationId":', headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST');
    });

    it('a refused send does not use up the limit', async () => {
      const app = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '1/1d' } });
      const to = freshPhone();
      assertFieldError(await send({ ...app, to, placeholders: { pin: 'x' } }), 'placeholders.pin');
      assertFieldError(await send({ ...app, messageId: MISSING_ID, to }), 'messageId');
      assert.equal((await send({ ...app, to })).status, 200);
    });
  });
});
