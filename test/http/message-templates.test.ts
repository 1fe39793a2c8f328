// /2fa/2/applications/{appId}/messages and /email/messages: SMS/voice and email message templates.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, type Harness } from '../support/harness.js';
import { MISSING_ID, assertEnvelope, assertFieldError, forbid5xx } from '../support/http-assertions.js';

describe('2FA message templates', () => {
  let h: Harness;
  let appId: string;
  before(async () => {
    h = forbid5xx(await createHarness());
    appId = (await h.request('POST', '/2fa/2/applications', { body: { name: 'templates' } })).body.applicationId;
  });
  after(async () => { await h.close(); });

  const createSms = (body: unknown, app = appId, key?: string) => h.request('POST', `/2fa/2/applications/${app}/messages`, { body, ...(key ? { key } : {}) });
  const emailTemplate = async (key?: string) => {
    const res = await h.request('POST', '/api/v1/email-templates', { body: { name: 'code', subject: 'Your code', text: 'Code {{pin}}' }, ...(key ? { key } : {}) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.id as number;
  };
  const createEmail = (body: unknown, app = appId, key?: string) => h.request('POST', `/2fa/2/applications/${app}/email/messages`, { body, ...(key ? { key } : {}) });

  describe('SMS/voice templates', () => {
    it('create with only the required fields answers the template with pinPlaceholder, language "en" and pinLength 4', async () => {
      const res = await createSms({ pinType: 'NUMERIC', messageText: 'Your pin is {{pin}}' });
      assert.equal(res.status, 200);
      assert.match(res.body.messageId, /^[0-9A-F]{32}$/);
      assert.deepEqual(res.body, {
        messageId: res.body.messageId, applicationId: appId, pinPlaceholder: '{{pin}}', messageText: 'Your pin is {{pin}}',
        pinLength: 4, pinType: 'NUMERIC', language: 'en',
      });
    });

    it("echoes Infobip's DLT example request (reference §4.2) in full", async () => {
      const request = {
        pinType: 'NUMERIC', messageText: 'Your pin is {{pin}}', pinLength: 4, language: 'en', voiceName: 'Joanna', senderId: 'Infobip 2FA',
        repeatDTMF: '1#', speechRate: 1.0,
        regional: { indiaDlt: { contentTemplateId: 'your-template-id', principalEntityId: 'your-entity-id', teleMarketerId: 'your-tele-marketer-id' } },
      };
      const res = await createSms(request);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { messageId: res.body.messageId, applicationId: appId, pinPlaceholder: '{{pin}}', ...request });
    });

    it('accepts pinPlaceholder in the request (community SDKs send it) and still answers {{pin}}', async () => {
      const res = await createSms({ pinType: 'HEX', messageText: 'Code {{pin}}', pinPlaceholder: '{{pin}}', pinLength: 6 });
      assert.equal(res.status, 200);
      assert.equal(res.body.pinPlaceholder, '{{pin}}');
      assert.equal(res.body.pinType, 'HEX');
      assert.equal(res.body.pinLength, 6);
    });

    it('takes the hyphenated language spelling of older SDKs and answers the underscore form', async () => {
      for (const [input, output] of [['pt-pt', 'pt_pt'], ['pt_br', 'pt_br'], ['zh-cn', 'zh_cn'], ['zh_tw', 'zh_tw'], ['de', 'de']]) {
        const res = await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', language: input });
        assert.equal(res.status, 200, `${input}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.language, output);
      }
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', language: 'xx' }), 'language');
    });

    it('accepts every pinType and pinLength from 4 to 16', async () => {
      for (const pinType of ['NUMERIC', 'ALPHA', 'HEX', 'ALPHANUMERIC']) {
        for (const pinLength of [4, 16]) {
          const res = await createSms({ pinType, pinLength, messageText: '{{pin}}' });
          assert.equal(res.status, 200, `${pinType}/${pinLength}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.pinType, pinType);
          assert.equal(res.body.pinLength, pinLength);
        }
      }
    });

    it('validates the fields', async () => {
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: 'no placeholder here' }), 'messageText');
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: 'Your pin is {{ pin }}' }), 'messageText');
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: `{{pin}}${'x'.repeat(1600)}` }), 'messageText');
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', repeatDTMF: 'abc' }), 'repeatDTMF');
      assertFieldError(await createSms({ pinType: 'NUMERIC' }), 'messageText');
      assertFieldError(await createSms({ messageText: '{{pin}}' }), 'pinType');
      assertFieldError(await createSms({ pinType: 'NUMBERS', messageText: '{{pin}}' }), 'pinType');
      assertFieldError(await createSms({ pinType: 'numeric', messageText: '{{pin}}' }), 'pinType');
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', pinLength: 3 }), 'pinLength');
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', pinLength: 17 }), 'pinLength');
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', pinLength: '6' }), 'pinLength');
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', speechRate: 0.4 }), 'speechRate');
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', speechRate: 2.1 }), 'speechRate');
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', senderId: 'TwelveChars!' }), 'senderId');
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', senderId: '' }), 'senderId');
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', regional: { indiaDlt: { principalEntityId: 'x'.repeat(31) } } }), 'regional.indiaDlt.principalEntityId');
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', regional: { indiaDlt: { principalEntityId: 'p', contentTemplateId: 'x'.repeat(31) } } }), 'regional.indiaDlt.contentTemplateId');
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', regional: { indiaDlt: { principalEntityId: 'p', teleMarketerId: 'x'.repeat(256) } } }), 'regional.indiaDlt.teleMarketerId');
      assertFieldError(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', regional: { indiaDlt: {} } }), 'regional.indiaDlt.principalEntityId');
    });

    it('accepts the boundaries of the limits', async () => {
      for (const body of [
        { speechRate: 0.5 }, { speechRate: 2 }, { senderId: 'ElevenChars' }, { senderId: '41793026727' },
        { regional: { indiaDlt: { principalEntityId: 'x'.repeat(30), contentTemplateId: 'y'.repeat(30), teleMarketerId: 'z'.repeat(255) } } },
      ]) {
        const res = await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}', ...body });
        assert.equal(res.status, 200, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      }
    });

    it('get answers the template as create did; list contains it', async () => {
      const created = await createSms({ pinType: 'ALPHA', messageText: 'Hello {{name}}, code {{pin}}', pinLength: 5, senderId: 'Acme', language: 'fr', speechRate: 1.5 });
      const got = await h.request('GET', `/2fa/2/applications/${appId}/messages/${created.body.messageId}`);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, created.body);
      const list = await h.request('GET', `/2fa/2/applications/${appId}/messages`);
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.find((m: { messageId: string }) => m.messageId === created.body.messageId), created.body);
    });

    it('update merges: fields left out keep their value', async () => {
      const created = await createSms({ pinType: 'NUMERIC', messageText: 'Your pin is {{pin}}', pinLength: 6, senderId: 'Acme', language: 'de', repeatDTMF: '1#', speechRate: 1.5 });
      const url = `/2fa/2/applications/${appId}/messages/${created.body.messageId}`;
      const updated = await h.request('PUT', url, { body: { messageText: 'Code: {{pin}}', pinType: 'ALPHANUMERIC' } });
      assert.equal(updated.status, 200);
      assert.deepEqual(updated.body, { ...created.body, messageText: 'Code: {{pin}}', pinType: 'ALPHANUMERIC' });
      const empty = await h.request('PUT', url, { body: {} });
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.body, updated.body);
      const lang = await h.request('PUT', url, { body: { language: 'pt-br' } });
      assert.equal(lang.body.language, 'pt_br');
      assert.deepEqual((await h.request('GET', url)).body, lang.body, 'the update is stored');
    });

    it('update validates like create, and a refused update changes nothing', async () => {
      const created = await createSms({ pinType: 'NUMERIC', messageText: 'Your pin is {{pin}}' });
      const url = `/2fa/2/applications/${appId}/messages/${created.body.messageId}`;
      assertFieldError(await h.request('PUT', url, { body: { messageText: 'no pin' } }), 'messageText');
      assertFieldError(await h.request('PUT', url, { body: { pinLength: 3 } }), 'pinLength');
      assertFieldError(await h.request('PUT', url, { body: { speechRate: 3 } }), 'speechRate');
      assertFieldError(await h.request('PUT', url, { body: { pinType: 'BINARY' } }), 'pinType');
      assertFieldError(await h.request('PUT', url, { body: { pinLength: 8, senderId: 'WayTooLongSender' } }), 'senderId');
      assert.deepEqual((await h.request('GET', url)).body, created.body);
    });
  });

  describe('email message templates', () => {
    it('create with only emailTemplateId answers the EmailMessage with pinLength 4 and pinType NUMERIC', async () => {
      const emailTemplateId = await emailTemplate();
      const res = await createEmail({ emailTemplateId });
      assert.equal(res.status, 200);
      assert.match(res.body.messageId, /^[0-9A-F]{32}$/);
      assert.deepEqual(res.body, { messageId: res.body.messageId, applicationId: appId, pinLength: 4, pinType: 'NUMERIC', emailTemplateId });
    });

    it("echoes Infobip's example request (reference §4.3) with exactly the EmailMessage keys", async () => {
      const emailTemplateId = await emailTemplate();
      const request = { pinType: 'ALPHANUMERIC', pinLength: 6, from: 'company@example.com', emailTemplateId, landingPageId: '1_23456' };
      const res = await createEmail(request);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { messageId: res.body.messageId, applicationId: appId, ...request });
      assert.deepEqual(Object.keys(res.body).sort(), ['applicationId', 'emailTemplateId', 'from', 'landingPageId', 'messageId', 'pinLength', 'pinType']);
    });

    it('accepts a sender with a display name', async () => {
      const res = await createEmail({ emailTemplateId: await emailTemplate(), from: 'Jane Smith <jane.smith@somecompany.com>' });
      assert.equal(res.status, 200);
      assert.equal(res.body.from, 'Jane Smith <jane.smith@somecompany.com>');
    });

    it('refuses an unknown emailTemplateId, and one of another account, as 400 on emailTemplateId', async () => {
      assertFieldError(await createEmail({ emailTemplateId: 987654321 }), 'emailTemplateId');
      const ofB = await emailTemplate(h.keys.b);
      assertFieldError(await createEmail({ emailTemplateId: ofB }), 'emailTemplateId');
    });

    it('validates the fields', async () => {
      const emailTemplateId = await emailTemplate();
      assertFieldError(await createEmail({}), 'emailTemplateId');
      assertFieldError(await createEmail({ emailTemplateId: String(emailTemplateId) }), 'emailTemplateId');
      assertFieldError(await createEmail({ emailTemplateId, pinLength: 3 }), 'pinLength');
      assertFieldError(await createEmail({ emailTemplateId, pinLength: 17 }), 'pinLength');
      assertFieldError(await createEmail({ emailTemplateId, pinType: 'DIGITS' }), 'pinType');
      assertFieldError(await createEmail({ emailTemplateId, from: 'not an address' }), 'from');
      assertFieldError(await createEmail({ emailTemplateId, from: 'a@b.com\r\nBcc: c@d.com' }), 'from');
    });

    it('update merges, validates, and checks a new emailTemplateId', async () => {
      const emailTemplateId = await emailTemplate();
      const created = await createEmail({ emailTemplateId, from: 'company@example.com' });
      const url = `/2fa/2/applications/${appId}/email/messages/${created.body.messageId}`;
      const updated = await h.request('PUT', url, { body: { pinLength: 8, pinType: 'HEX' } });
      assert.equal(updated.status, 200);
      assert.deepEqual(updated.body, { ...created.body, pinLength: 8, pinType: 'HEX' });
      const other = await emailTemplate();
      const moved = await h.request('PUT', url, { body: { emailTemplateId: other } });
      assert.equal(moved.status, 200);
      assert.deepEqual(moved.body, { ...updated.body, emailTemplateId: other });
      assertFieldError(await h.request('PUT', url, { body: { emailTemplateId: 987654321 } }), 'emailTemplateId');
      assertFieldError(await h.request('PUT', url, { body: { emailTemplateId: await emailTemplate(h.keys.b) } }), 'emailTemplateId');
      assertFieldError(await h.request('PUT', url, { body: { pinLength: 20 } }), 'pinLength');
      assert.deepEqual((await h.request('GET', `/2fa/2/applications/${appId}/messages/${created.body.messageId}`)).body, moved.body);
    });

    it('an email message is read through /messages/{id}, with the email shape', async () => {
      const created = await createEmail({ emailTemplateId: await emailTemplate(), landingPageId: '1_23456' });
      const got = await h.request('GET', `/2fa/2/applications/${appId}/messages/${created.body.messageId}`);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, created.body);
    });

    it('the two kinds are updated only through their own endpoint', async () => {
      const email = await createEmail({ emailTemplateId: await emailTemplate() });
      const sms = await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}' });
      assertEnvelope(await h.request('PUT', `/2fa/2/applications/${appId}/messages/${email.body.messageId}`, { body: { messageText: 'x {{pin}}' } }), 400, 'BAD_REQUEST');
      assertEnvelope(await h.request('PUT', `/2fa/2/applications/${appId}/email/messages/${sms.body.messageId}`, { body: { pinLength: 6 } }), 400, 'BAD_REQUEST');
      assert.deepEqual((await h.request('GET', `/2fa/2/applications/${appId}/messages/${email.body.messageId}`)).body, email.body);
      assert.deepEqual((await h.request('GET', `/2fa/2/applications/${appId}/messages/${sms.body.messageId}`)).body, sms.body);
    });
  });

  describe('listing both kinds', () => {
    it('answers SMS/voice and email templates of the application, each with its own shape', async () => {
      const app = (await h.request('POST', '/2fa/2/applications', { body: { name: 'both kinds' } })).body.applicationId;
      const sms = await createSms({ pinType: 'NUMERIC', messageText: 'Your pin is {{pin}}', senderId: 'Acme' }, app);
      const voice = await createSms({ pinType: 'NUMERIC', messageText: 'Your pin is {{pin}}', language: 'en', voiceName: 'Joanna', repeatDTMF: '1#', speechRate: 1 }, app);
      const emailTemplateId = await emailTemplate();
      const email = await createEmail({ emailTemplateId, from: 'company@example.com' }, app);
      const list = await h.request('GET', `/2fa/2/applications/${app}/messages`);
      assert.equal(list.status, 200);
      assert.equal(list.body.length, 3);
      const byId = new Map(list.body.map((m: { messageId: string }) => [m.messageId, m]));
      assert.deepEqual(byId.get(sms.body.messageId), sms.body);
      assert.deepEqual(byId.get(voice.body.messageId), voice.body);
      assert.deepEqual(byId.get(email.body.messageId), { messageId: email.body.messageId, applicationId: app, pinLength: 4, pinType: 'NUMERIC', from: 'company@example.com', emailTemplateId });
      for (const m of list.body) assert.equal(m.applicationId, app);
    });

    it('an application without templates lists an empty array', async () => {
      const app = (await h.request('POST', '/2fa/2/applications', { body: { name: 'empty' } })).body.applicationId;
      const list = await h.request('GET', `/2fa/2/applications/${app}/messages/`);
      assert.equal(list.status, 200);
      assert.deepEqual(list.body, []);
    });
  });

  describe('unknown and foreign resources', () => {
    it('an unknown application is 404 on every template endpoint', async () => {
      const emailTemplateId = await emailTemplate();
      const base = `/2fa/2/applications/${MISSING_ID}`;
      assertEnvelope(await h.request('GET', `${base}/messages`), 404, 'NOT_FOUND');
      assertEnvelope(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}' }, MISSING_ID), 404, 'NOT_FOUND');
      assertEnvelope(await createEmail({ emailTemplateId }, MISSING_ID), 404, 'NOT_FOUND');
      assertEnvelope(await h.request('GET', `${base}/messages/${MISSING_ID}`), 404, 'NOT_FOUND');
      assertEnvelope(await h.request('PUT', `${base}/messages/${MISSING_ID}`, { body: {} }), 404, 'NOT_FOUND');
      assertEnvelope(await h.request('PUT', `${base}/email/messages/${MISSING_ID}`, { body: {} }), 404, 'NOT_FOUND');
    });

    it('an unknown messageId in a known application is 404', async () => {
      assertEnvelope(await h.request('GET', `/2fa/2/applications/${appId}/messages/${MISSING_ID}`), 404, 'NOT_FOUND');
      assertEnvelope(await h.request('PUT', `/2fa/2/applications/${appId}/messages/${MISSING_ID}`, { body: {} }), 404, 'NOT_FOUND');
      assertEnvelope(await h.request('PUT', `/2fa/2/applications/${appId}/email/messages/${MISSING_ID}`, { body: {} }), 404, 'NOT_FOUND');
    });

    it("a message of another application of the same account is 404 under the wrong application", async () => {
      const other = (await h.request('POST', '/2fa/2/applications', { body: { name: 'other' } })).body.applicationId;
      const sms = await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}' }, other);
      assertEnvelope(await h.request('GET', `/2fa/2/applications/${appId}/messages/${sms.body.messageId}`), 404, 'NOT_FOUND');
      assertEnvelope(await h.request('PUT', `/2fa/2/applications/${appId}/messages/${sms.body.messageId}`, { body: { pinLength: 8 } }), 404, 'NOT_FOUND');
    });

    it("account B gets 404 for account A's application and templates, like for missing ones", async () => {
      const sms = await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}' });
      const email = await createEmail({ emailTemplateId: await emailTemplate() });
      const b = h.keys.b;
      const same = (foreign: Awaited<ReturnType<Harness['request']>>, missing: Awaited<ReturnType<Harness['request']>>) => {
        assertEnvelope(foreign, 404, 'NOT_FOUND');
        assertEnvelope(missing, 404, 'NOT_FOUND');
        assert.equal(JSON.stringify(foreign.body).replaceAll(appId, '<id>'), JSON.stringify(missing.body).replaceAll(MISSING_ID, '<id>'));
      };
      same(await h.request('GET', `/2fa/2/applications/${appId}/messages`, { key: b }), await h.request('GET', `/2fa/2/applications/${MISSING_ID}/messages`, { key: b }));
      same(await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}' }, appId, b), await createSms({ pinType: 'NUMERIC', messageText: '{{pin}}' }, MISSING_ID, b));
      const bTemplate = await emailTemplate(b);
      same(await createEmail({ emailTemplateId: bTemplate }, appId, b), await createEmail({ emailTemplateId: bTemplate }, MISSING_ID, b));
      assertEnvelope(await h.request('GET', `/2fa/2/applications/${appId}/messages/${sms.body.messageId}`, { key: b }), 404, 'NOT_FOUND');
      assertEnvelope(await h.request('PUT', `/2fa/2/applications/${appId}/messages/${sms.body.messageId}`, { key: b, body: { messageText: 'pwned {{pin}}' } }), 404, 'NOT_FOUND');
      assertEnvelope(await h.request('PUT', `/2fa/2/applications/${appId}/email/messages/${email.body.messageId}`, { key: b, body: { pinLength: 10 } }), 404, 'NOT_FOUND');
      assert.deepEqual((await h.request('GET', `/2fa/2/applications/${appId}/messages/${sms.body.messageId}`)).body, sms.body);
      assert.deepEqual((await h.request('GET', `/2fa/2/applications/${appId}/messages/${email.body.messageId}`)).body, email.body);
    });
  });
});
