// Twilio Verify v2 through Twilio's official Node SDK (twilio 6.2), pointed at a real twofa server on
// 127.0.0.1 by the Verify domain's base URL, authenticated with the account SID and an API key. Every
// answer the SDK receives is held against the fields Twilio's OpenAPI document lists for it.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import twilio from 'twilio';
import { serviceSid as twilioServiceSid, verificationSid } from '../../src/domain/twilio-sids.js';
import { authenticate, createApiKey, SCOPE_PIN_APPROVE, SCOPE_PIN_SEND } from '../../src/service/api-keys.js';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { freshEmail, freshPhone } from '../support/http-assertions.js';
import { assertDocumentedFields, assertTwilioError } from './documented-fields.js';
import { RecordingClient, rejectsWith } from './sdk-support.js';

const pinIdOf = (verificationSid: string) => verificationSid.slice(2).toUpperCase();

describe('Twilio Verify v2 through the official Node SDK', () => {
  let h: Harness;
  let http: RecordingClient;
  let client: twilio.Twilio;
  let base: string;
  let accountSid: string;
  let serviceSid: string;

  function sdk(sid: string, key: string): twilio.Twilio {
    const c = twilio(sid, key, { httpClient: http });
    c.verify.baseUrl = base;
    return c;
  }

  before(async () => {
    h = await createHarness();
    await h.node.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.node.app.server.address() as AddressInfo).port}`;
    accountSid = (await h.request('GET', '/api/v1/me')).body.accountSid;
    assert.match(accountSid, /^AC[0-9a-f]{32}$/);
    http = new RecordingClient({ keepAlive: false });
    client = sdk(accountSid, h.keys.a);
    serviceSid = (await client.verify.v2.services.create({ friendlyName: 'Acme' })).sid;
  });
  after(async () => { await h.close(); });

  describe('Services', () => {
    it('creates, fetches, updates and deletes a service, with every documented field', async () => {
      const created = await client.verify.v2.services.create({ friendlyName: 'Shop', codeLength: 8, doNotShareWarningEnabled: true, lookupEnabled: false });
      assert.match(created.sid, /^VA[0-9a-f]{32}$/);
      assert.equal(created.accountSid, accountSid);
      assert.equal(created.friendlyName, 'Shop');
      assert.equal(created.codeLength, 8);
      assert.equal(created.doNotShareWarningEnabled, true);
      assert.equal(created.url, `${base}/v2/Services/${created.sid}`);
      assert.equal(created.links['verifications'], `${base}/v2/Services/${created.sid}/Verifications`);
      assert.match(String(http.answers.at(-1)!.body && (http.answers.at(-1)!.body as { date_created: string }).date_created), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

      const updated = await client.verify.v2.services(created.sid).update({ friendlyName: 'Shop 2', codeLength: 4, 'totp.issuer': 'Shop' });
      assert.equal(updated.friendlyName, 'Shop 2');
      assert.equal(updated.codeLength, 4);
      assert.equal((updated.totp as { issuer: string }).issuer, 'Shop');
      assert.equal(updated.doNotShareWarningEnabled, true, 'a parameter left out keeps its value');
      const fetched = await client.verify.v2.services(created.sid).fetch();
      assert.equal(fetched.friendlyName, 'Shop 2');

      // The code length is the service's: a verification's code has 4 digits now.
      const to = `+${freshPhone()}`;
      const started = await client.verify.v2.services(created.sid).verifications.create({ to, channel: 'sms' });
      await h.node.worker.drain();
      const text = h.node.inbox.list((await import('../../src/service/api-keys.js').then((m) => m.authenticate(h.node.store, `App ${h.keys.a}`)))!.accountId, { limit: 1000 })
        .find((m) => m.pinId === pinIdOf(started.sid))!.text!;
      assert.match(text, /^Your Shop 2 verification code is: \d{4}\. Don't share this code/);

      assert.equal(await client.verify.v2.services(created.sid).remove(), true);
      await rejectsWith(client.verify.v2.services(created.sid).fetch(), 404, 20404);
      await rejectsWith(client.verify.v2.services(created.sid).verifications.create({ to, channel: 'sms' }), 404, 20404);
    });

    it('refuses a bad FriendlyName or CodeLength with 60200 naming the parameter', async () => {
      const e = await rejectsWith(client.verify.v2.services.create({ friendlyName: 'Shop', codeLength: 11 }), 400, 60200);
      assert.equal(e.message, 'Invalid parameter: CodeLength');
      await rejectsWith(client.verify.v2.services.create({ friendlyName: 'x'.repeat(33) }), 400, 60200);
    });

    it('lists services in Twilio pages the SDK follows through next_page_url', async () => {
      for (let i = 0; i < 4; i++) await client.verify.v2.services.create({ friendlyName: `Paged ${i}` });
      const first = await client.verify.v2.services.page({ pageSize: 2 });
      assert.equal(first.instances.length, 2);
      assert.ok(first.nextPageUrl?.startsWith(`${base}/v2/Services?PageSize=2&Page=1`), first.nextPageUrl);
      const second = await first.nextPage();
      assert.ok(second);
      assert.equal(second.instances.length, 2);
      assert.notEqual(second.instances[0]!.sid, first.instances[0]!.sid);
      const all = await client.verify.v2.services.list({ pageSize: 2 });
      const names = all.map((s) => s.friendlyName);
      for (let i = 0; i < 4; i++) assert.ok(names.includes(`Paged ${i}`));
      assert.equal(new Set(all.map((s) => s.sid)).size, all.length, 'no service twice across pages');
    });
  });

  describe('the console', () => {
    it('shows which API each PIN was asked for through', async () => {
      const to = freshPhone();
      const started = await client.verify.v2.services(serviceSid).verifications.create({ to: `+${to}`, channel: 'sms' });
      const app = await createAppAndTemplate(h);
      const infobip = await h.request('POST', '/2fa/2/pin', { body: { ...app, to } });
      assert.equal(infobip.status, 200);
      const listed = (await h.request('GET', `/api/v1/pins?to=${to}`)).body.pins as { pinId: string; dialect: string }[];
      const dialectOf = (pinId: string) => listed.find((p) => p.pinId === pinId)?.dialect;
      assert.equal(dialectOf(pinIdOf(started.sid)), 'twilio');
      assert.equal(dialectOf(infobip.body.pinId), 'infobip');
    });
  });

  describe('authentication', () => {
    it('answers 401 with 20003 for a wrong key, and for a key of another account under this SID', async () => {
      await rejectsWith(sdk(accountSid, 'not-a-key').verify.v2.services.list(), 401, 20003);
      await rejectsWith(sdk(accountSid, h.keys.b).verify.v2.services.list(), 401, 20003);
      await rejectsWith(sdk(`AC${'0'.repeat(32)}`, h.keys.a).verify.v2.services.list(), 401, 20003);
    });

    it('takes an API key\'s SID (SK...) with the key, as Twilio takes a key SID with its secret, and no other key\'s SID', async () => {
      const me = (await h.request('GET', '/api/v1/me')).body;
      assert.match(me.apiKeySid, /^SK[0-9a-f]{32}$/);
      const byKeySid = twilio(me.apiKeySid, h.keys.a, { accountSid, httpClient: http });
      byKeySid.verify.baseUrl = base;
      assert.equal((await byKeySid.verify.v2.services(serviceSid).fetch()).sid, serviceSid);
      const otherKeySid = (await h.request('GET', '/api/v1/me', { key: h.keys.sendOnly })).body.apiKeySid;
      assert.notEqual(otherKeySid, me.apiKeySid);
      const mismatched = twilio(otherKeySid, h.keys.a, { accountSid, httpClient: http });
      mismatched.verify.baseUrl = base;
      await rejectsWith(mismatched.verify.v2.services.list(), 401, 20003);
    });

    it('keeps accounts apart: account B does not see account A\'s service', async () => {
      const sidB = (await h.request('GET', '/api/v1/me', { key: h.keys.b })).body.accountSid;
      assert.notEqual(sidB, accountSid);
      const b = sdk(sidB, h.keys.b);
      await rejectsWith(b.verify.v2.services(serviceSid).fetch(), 404, 20404);
      assert.ok((await b.verify.v2.services.list()).every((s) => s.sid !== serviceSid));
    });

    it('needs the manage scope for services; a send-only key may verify', async () => {
      const sendOnly = sdk(accountSid, h.keys.sendOnly);
      await rejectsWith(sendOnly.verify.v2.services.create({ friendlyName: 'No' }), 403, 20403);
      const started = await sendOnly.verify.v2.services(serviceSid).verifications.create({ to: `+${freshPhone()}`, channel: 'sms' });
      assert.equal(started.status, 'pending');
    });
  });

  describe('approval without the code', () => {
    it('needs 2fa:pin:approve: a send-only key may cancel a verification but not approve one, of either dialect (403 20403)', async () => {
      const sendOnly = sdk(accountSid, h.keys.sendOnly);
      const to = `+${freshPhone()}`;
      const started = await sendOnly.verify.v2.services(serviceSid).verifications.create({ to, channel: 'sms' });
      const refused = await rejectsWith(sendOnly.verify.v2.services(serviceSid).verifications(started.sid).update({ status: 'approved' }), 403, 20403);
      assert.match(refused.message, /2fa:pin:approve/);
      assert.equal((await client.verify.v2.services(serviceSid).verifications(started.sid).fetch()).status, 'pending', 'the refused approval changed nothing');
      // A PIN sent through Infobip's API is a verification of its application's Service too.
      const app = await createAppAndTemplate(h);
      const infobip = await h.request('POST', '/2fa/2/pin', { key: h.keys.sendOnly, body: { ...app, to: freshPhone() } });
      await rejectsWith(sendOnly.verify.v2.services(twilioServiceSid(app.applicationId)).verifications(verificationSid(infobip.body.pinId)).update({ status: 'approved' }), 403, 20403);
      assert.equal((await h.request('POST', `/2fa/2/pin/${infobip.body.pinId}/verify`, { body: { pin: await deliveredPin(h, infobip.body.pinId) } })).body.verified, true);
      assert.equal((await sendOnly.verify.v2.services(serviceSid).verifications(started.sid).update({ status: 'canceled' })).status, 'canceled');
    });

    it('approves with a key holding 2fa:pin:send and 2fa:pin:approve, and with a 2fa:manage key', async () => {
      const approver = (await createApiKey(h.node.store, { accountName: 'account-a', scopes: [SCOPE_PIN_SEND, SCOPE_PIN_APPROVE], now: Date.now() })).key;
      for (const key of [approver, h.keys.a]) {
        const verify = sdk(accountSid, key).verify.v2.services(serviceSid);
        const started = await verify.verifications.create({ to: `+${freshPhone()}`, channel: 'sms' });
        assert.equal((await verify.verifications(started.sid).update({ status: 'approved' })).status, 'approved');
      }
    });
  });

  describe('Rate Limits and Buckets', () => {
    it('creates, fetches, updates, lists and deletes Rate Limits and their Buckets', async () => {
      const service = client.verify.v2.services(serviceSid);
      const limit = await service.rateLimits.create({ uniqueName: 'user_id', description: 'per user' });
      assert.match(limit.sid, /^RK[0-9a-f]{32}$/);
      assert.deepEqual([limit.serviceSid, limit.accountSid, limit.uniqueName, limit.description], [serviceSid, accountSid, 'user_id', 'per user']);
      assert.equal(limit.links['buckets'], `${base}/v2/Services/${serviceSid}/RateLimits/${limit.sid}/Buckets`);
      assert.equal((await service.rateLimits(limit.sid).update({ description: 'per signed-in user' })).description, 'per signed-in user');
      assert.equal((await service.rateLimits(limit.sid).fetch()).uniqueName, 'user_id');
      assert.ok((await service.rateLimits.list()).some((l) => l.sid === limit.sid));
      await rejectsWith(service.rateLimits.create({ uniqueName: 'user_id' }), 409, 60208);
      await rejectsWith(service.rateLimits.create({ uniqueName: 'has spaces' }), 400, 60209);

      const bucket = await service.rateLimits(limit.sid).buckets.create({ max: 5, interval: 60 });
      assert.match(bucket.sid, /^BL[0-9a-f]{32}$/);
      assert.deepEqual([bucket.rateLimitSid, bucket.serviceSid, bucket.max, bucket.interval], [limit.sid, serviceSid, 5, 60]);
      assert.equal((await service.rateLimits(limit.sid).buckets(bucket.sid).update({ max: 7 })).max, 7);
      assert.equal((await service.rateLimits(limit.sid).buckets(bucket.sid).fetch()).interval, 60);
      assert.deepEqual((await service.rateLimits(limit.sid).buckets.list()).map((b) => b.sid), [bucket.sid]);
      await rejectsWith(service.rateLimits(limit.sid).buckets.create({ max: 1, interval: 60 }), 400, 60211);
      assert.equal(await service.rateLimits(limit.sid).buckets(bucket.sid).remove(), true);
      await rejectsWith(service.rateLimits(limit.sid).buckets(bucket.sid).fetch(), 404, 20404);
      await service.rateLimits(limit.sid).buckets.create({ max: 1, interval: 3600 });
      assert.equal(await service.rateLimits(limit.sid).remove(), true);
      await rejectsWith(service.rateLimits(limit.sid).fetch(), 404, 20404);
      await rejectsWith(service.rateLimits(limit.sid).buckets.list(), 404, 20404);
    });

    it('refuses a start over a Bucket of a limit the start names (429, 20429), per value, until the interval has passed', async () => {
      const service = client.verify.v2.services(serviceSid);
      const limit = await service.rateLimits.create({ uniqueName: 'end_user_ip' });
      await service.rateLimits(limit.sid).buckets.create({ max: 2, interval: 60 });
      const start = (ip: string) => service.verifications.create({ to: `+${freshPhone()}`, channel: 'sms', rateLimits: { end_user_ip: ip } });
      await start('203.0.113.7');
      await start('203.0.113.7');
      const refused = await rejectsWith(start('203.0.113.7'), 429, 20429);
      assert.match(refused.message, /rate limit/i);
      assert.equal((await start('198.51.100.1')).status, 'pending', 'another value has its own count');
      assert.equal((await service.verifications.create({ to: `+${freshPhone()}`, channel: 'sms' })).status, 'pending', 'a start naming no limit is not limited');
      assert.equal((await service.verifications.create({ to: `+${freshPhone()}`, channel: 'sms', rateLimits: { other_name: '203.0.113.7' } })).status, 'pending', 'nor one naming a limit the service does not have');
      h.clock.advance(61_000);
      assert.equal((await start('203.0.113.7')).status, 'pending');
      await rejectsWith(service.verifications.create({ to: `+${freshPhone()}`, channel: 'sms', rateLimits: 'not json' as never }), 400, 60200);
    });
  });

  describe('Templates and locales', () => {
    it('lists the built-in template with its translations in more than 30 locales, English the default', async () => {
      const templates = await client.verify.v2.templates.list();
      assert.equal(templates.length, 1);
      const [base] = templates;
      assert.match(base!.sid, /^HJ[0-9a-f]{32}$/);
      assert.equal(base!.accountSid, accountSid);
      assert.deepEqual(base!.channels, ['sms', 'voice']);
      const translations = base!.translations as Record<string, { is_default_translation: boolean; status: string; text: string }>;
      assert.ok(Object.keys(translations).length >= 30, `${Object.keys(translations).length} locales`);
      assert.equal(translations['en']!.is_default_translation, true);
      assert.equal(Object.values(translations).filter((t) => t.is_default_translation).length, 1);
      for (const [locale, t] of Object.entries(translations)) assert.match(t.text, /\{\{friendly_name\}\}.*\{\{code\}\}$/, locale);
      assert.equal((await client.verify.v2.templates.list({ friendlyName: 'base verification' })).length, 1);
      assert.equal((await client.verify.v2.templates.list({ friendlyName: 'no such template' })).length, 0);
    });

    it('sends in the Locale a start asks for (any case), with the built-in TemplateSid; refuses an unknown one with 60200', async () => {
      const verify = client.verify.v2.services(serviceSid);
      const [base] = await client.verify.v2.templates.list();
      const inbox = async (sid: string) => {
        await h.node.worker.drain();
        const account = (await import('../../src/service/api-keys.js').then((m) => m.authenticate(h.node.store, `App ${h.keys.a}`)))!.accountId;
        return h.node.inbox.list(account, { limit: 1000 }).find((m) => m.pinId === pinIdOf(sid))!.text!;
      };
      const fr = await verify.verifications.create({ to: `+${freshPhone()}`, channel: 'sms', locale: 'fr', templateSid: base!.sid });
      assert.match(await inbox(fr.sid), /^Votre code de vérification Acme est : \d{6}\.$/);
      const ptBr = await verify.verifications.create({ to: `+${freshPhone()}`, channel: 'sms', locale: 'PT-br' });
      assert.match(await inbox(ptBr.sid), /^Seu código de verificação do Acme é: \d{6}\.$/);
      const code = await deliveredPin(h, pinIdOf(fr.sid));
      assert.equal((await verify.verificationChecks.create({ verificationSid: fr.sid, code })).status, 'approved');
      assert.equal((await rejectsWith(verify.verifications.create({ to: `+${freshPhone()}`, channel: 'sms', locale: 'xx' }), 400, 60200)).message, 'Invalid parameter: Locale');
      assert.equal((await rejectsWith(verify.verifications.create({ to: `+${freshPhone()}`, channel: 'sms', templateSid: `HJ${'0'.repeat(32)}` }), 400, 60200)).message, 'Invalid parameter: TemplateSid');
    });
  });

  describe('Messaging Configurations', () => {
    it('creates, fetches, lists, updates and deletes a Service\'s configuration per country; one per country (60213)', async () => {
      const configurations = client.verify.v2.services(serviceSid).messagingConfigurations;
      const mg = (digit: string) => `MG${digit.repeat(32)}`;
      const ca = await configurations.create({ country: 'ca', messagingServiceSid: mg('1') });
      assert.deepEqual([ca.country, ca.messagingServiceSid, ca.serviceSid, ca.accountSid], ['CA', mg('1'), serviceSid, accountSid]);
      assert.equal(ca.url, `${base}/v2/Services/${serviceSid}/MessagingConfigurations/CA`);
      await configurations.create({ country: 'all', messagingServiceSid: mg('2') });
      await rejectsWith(configurations.create({ country: 'CA', messagingServiceSid: mg('3') }), 409, 60213);
      await rejectsWith(configurations.create({ country: 'Canada', messagingServiceSid: mg('3') }), 400, 60200);
      assert.deepEqual((await configurations.list()).map((c) => c.country), ['CA', 'all']);
      assert.equal((await client.verify.v2.services(serviceSid).messagingConfigurations('CA').update({ messagingServiceSid: mg('4') })).messagingServiceSid, mg('4'));
      assert.equal((await client.verify.v2.services(serviceSid).messagingConfigurations('CA').fetch()).messagingServiceSid, mg('4'));
      assert.equal(await client.verify.v2.services(serviceSid).messagingConfigurations('CA').remove(), true);
      await rejectsWith(client.verify.v2.services(serviceSid).messagingConfigurations('CA').fetch(), 404, 20404);
    });
  });

  describe('Safe List', () => {
    it('lets a listed number through the destination guards that refuse it otherwise (403, 60605)', async () => {
      const service = await client.verify.v2.services.create({ friendlyName: 'Guarded' });
      const appId = service.sid.slice(2).toUpperCase();
      const guarded = await h.request('PUT', `/api/v1/applications/${appId}/security`, { body: { enabled: true, blockedCountries: ['CH'] } });
      assert.equal(guarded.status, 200, JSON.stringify(guarded.body));
      const to = `+${freshPhone()}`;
      const start = () => client.verify.v2.services(service.sid).verifications.create({ to, channel: 'sms' });
      await rejectsWith(start(), 403, 60605);

      const listed = await client.verify.v2.safelist.create({ phoneNumber: to });
      assert.match(listed.sid, /^GN[0-9a-f]{32}$/);
      assert.equal(listed.phoneNumber, to);
      assert.equal(listed.url, `${base}/v2/SafeList/Numbers/${to}`);
      assert.equal((await client.verify.v2.safelist(to).fetch()).sid, listed.sid);
      assert.equal((await client.verify.v2.safelist.create({ phoneNumber: to })).sid, listed.sid, 'listing a listed number again answers its entry');
      const countryRefusals = async () => Number(/twofa_security_refusals_total\{guard="country"[^}]*\} (\d+)/.exec(String((await h.request('GET', '/metrics', { key: null })).body))?.[1] ?? 0);
      const refusedBefore = await countryRefusals();
      assert.ok(refusedBefore >= 1, 'the refused start above is counted');
      assert.equal((await start()).status, 'pending');
      assert.equal(await countryRefusals(), refusedBefore, 'a send the Safe List lets through is no refusal in the metrics');
      // Another account's list is its own.
      const b = sdk((await h.request('GET', '/api/v1/me', { key: h.keys.b })).body.accountSid, h.keys.b);
      await rejectsWith(b.verify.v2.safelist(to).fetch(), 404, 20404);

      assert.equal(await client.verify.v2.safelist(to).remove(), true);
      await rejectsWith(client.verify.v2.safelist(to).fetch(), 404, 20404);
      await rejectsWith(client.verify.v2.services(service.sid).verifications.create({ to: `+${freshPhone()}`, channel: 'sms' }), 403, 60605);
      await rejectsWith(client.verify.v2.safelist.create({ phoneNumber: freshPhone() }), 400, 60200);
    });
  });

  describe('Verification Attempts and their Summary', () => {
    it('lists each send as an attempt, converted once its verification is approved, filters and pages them, and sums them up', async () => {
      const service = await client.verify.v2.services.create({ friendlyName: 'Attempts' });
      const verify = client.verify.v2.services(service.sid);
      const to = `+${freshPhone()}`;
      const first = await verify.verifications.create({ to, channel: 'sms' });
      h.clock.advance(1000);
      const again = await verify.verifications.create({ to, channel: 'call' });
      const code = await deliveredPin(h, pinIdOf(first.sid));
      assert.equal((await verify.verificationChecks.create({ to, code })).status, 'approved');
      h.clock.advance(1000);
      const other = await verify.verifications.create({ to: `+${freshPhone()}`, channel: 'sms' });

      const attempts = await client.verify.v2.verificationAttempts.list({ verifyServiceSid: service.sid });
      assert.deepEqual(attempts.map((a) => a.verificationSid), [other.sid, first.sid, first.sid], 'newest first');
      assert.deepEqual(attempts.map((a) => a.conversionStatus), ['unconverted', 'converted', 'converted']);
      assert.deepEqual(attempts.map((a) => a.channel), ['sms', 'call', 'sms']);
      assert.deepEqual(attempts.slice(1).map((a) => a.sid).reverse(), again.sendCodeAttempts.map((a) => (a as { attempt_sid: string }).attempt_sid),
        'an attempt is an entry of send_code_attempts');
      const fetched = await client.verify.v2.verificationAttempts(attempts[0]!.sid).fetch();
      assert.equal(fetched.serviceSid, service.sid);
      assert.equal((fetched.channelData as { to: string }).to, other.to);
      assert.equal((await client.verify.v2.verificationAttempts.list({ verifyServiceSid: service.sid, status: 'converted' })).length, 2);
      assert.equal((await client.verify.v2.verificationAttempts.list({ verificationSid: other.sid })).length, 1);
      assert.equal((await client.verify.v2.verificationAttempts.list({ 'channelData.to': to })).length, 2);
      const firstPage = await client.verify.v2.verificationAttempts.page({ verifyServiceSid: service.sid, pageSize: 2 });
      assert.equal(firstPage.instances.length, 2);
      assert.match(firstPage.nextPageUrl ?? '', new RegExp(`VerifyServiceSid=${service.sid}`), 'the next page keeps the filter');
      assert.deepEqual((await firstPage.nextPage())?.instances.map((a) => a.sid), [attempts[2]!.sid]);

      const summary = await client.verify.v2.verificationAttemptsSummary().fetch({ verifyServiceSid: service.sid });
      assert.deepEqual([summary.totalAttempts, summary.totalConverted, summary.totalUnconverted, summary.conversionRatePercentage], [3, 2, 1, '66.666666667']);
      const none = await client.verify.v2.verificationAttemptsSummary().fetch({ verifyServiceSid: `VA${'0'.repeat(32)}` });
      assert.deepEqual([none.totalAttempts, none.conversionRatePercentage], [0, '0']);
      await rejectsWith(client.verify.v2.verificationAttempts(`VL${'0'.repeat(32)}`).fetch(), 404, 20404);
      // Another account sees none of them.
      const b = sdk((await h.request('GET', '/api/v1/me', { key: h.keys.b })).body.accountSid, h.keys.b);
      await rejectsWith(b.verify.v2.verificationAttempts(attempts[0]!.sid).fetch(), 404, 20404);
    });
  });

  describe('Verifications', () => {
    const verify = () => client.verify.v2.services(serviceSid);

    it('starts by SMS, answers a wrong code with pending and valid false, approves the right one, then the verification is gone', async () => {
      const to = `+${freshPhone()}`;
      const started = await verify().verifications.create({ to, channel: 'sms' });
      assert.match(started.sid, /^VE[0-9a-f]{32}$/);
      assert.equal(started.to, to);
      assert.equal(started.channel, 'sms');
      assert.equal(started.status, 'pending');
      assert.equal(started.valid, false);
      assert.equal(started.sendCodeAttempts.length, 1);
      assert.equal(started.url, `${base}/v2/Services/${serviceSid}/Verifications/${started.sid}`);
      const code = await deliveredPin(h, pinIdOf(started.sid));
      assert.match(code, /^\d{6}$/);

      const wrong = await verify().verificationChecks.create({ to, code: code === '000000' ? '111111' : '000000' });
      assert.equal(wrong.status, 'pending');
      assert.equal(wrong.valid, false);
      assert.equal(wrong.sid, started.sid);

      const right = await verify().verificationChecks.create({ to, code });
      assert.equal(right.status, 'approved');
      assert.equal(right.valid, true);

      await rejectsWith(verify().verificationChecks.create({ to, code }), 404, 20404);
      await rejectsWith(verify().verificationChecks.create({ verificationSid: started.sid, code }), 404, 20404);
      await rejectsWith(verify().verifications(started.sid).fetch(), 404, 20404);
    });

    it('checks by VerificationSid, and fetches a pending verification', async () => {
      const started = await verify().verifications.create({ to: `+${freshPhone()}`, channel: 'sms' });
      const fetched = await verify().verifications(started.sid).fetch();
      assert.equal(fetched.status, 'pending');
      assert.equal(fetched.sid, started.sid);
      const code = await deliveredPin(h, pinIdOf(started.sid));
      const checked = await verify().verificationChecks.create({ verificationSid: started.sid, code });
      assert.equal(checked.status, 'approved');
    });

    it('re-sends the same code under the same SID on a second start, and refuses the 6th send with 429 60203', async () => {
      const to = `+${freshPhone()}`;
      const first = await verify().verifications.create({ to, channel: 'sms' });
      const code = await deliveredPin(h, pinIdOf(first.sid));
      const second = await verify().verifications.create({ to, channel: 'call' });
      assert.equal(second.sid, first.sid);
      assert.deepEqual(second.sendCodeAttempts.map((a) => (a as { channel: string }).channel), ['sms', 'call']);
      assert.equal(second.channel, 'call');
      for (let i = 3; i <= 5; i++) assert.equal((await verify().verifications.create({ to, channel: 'sms' })).sendCodeAttempts.length, i);
      await h.node.worker.drain();
      const account = (await import('../../src/service/api-keys.js').then((m) => m.authenticate(h.node.store, `App ${h.keys.a}`)))!.accountId;
      const messages = h.node.inbox.list(account, { limit: 1000 }).filter((m) => m.pinId === pinIdOf(first.sid));
      assert.equal(messages.length, 5);
      for (const m of messages) assert.ok(m.text?.includes(code), 'every send carries the same code');

      await rejectsWith(verify().verifications.create({ to, channel: 'sms' }), 429, 60203);
      // The limit is the verification's: once it is approved, a new one starts.
      assert.equal((await verify().verificationChecks.create({ to, code })).status, 'approved');
      const next = await verify().verifications.create({ to, channel: 'sms' });
      assert.notEqual(next.sid, first.sid);
    });

    it('takes 5 wrong checks (pending, valid false), refuses the 6th with 429 60202, then the verification is gone', async () => {
      const to = `+${freshPhone()}`;
      const started = await verify().verifications.create({ to, channel: 'sms' });
      const code = await deliveredPin(h, pinIdOf(started.sid));
      const wrongCode = code === '123456' ? '654321' : '123456';
      for (let i = 0; i < 5; i++) {
        const wrong = await verify().verificationChecks.create({ to, code: wrongCode });
        assert.deepEqual([wrong.status, wrong.valid], ['pending', false], `wrong check ${i + 1}`);
      }
      await rejectsWith(verify().verificationChecks.create({ to, code }), 429, 60202);
      await rejectsWith(verify().verificationChecks.create({ to, code }), 404, 20404);
      const fresh = await verify().verifications.create({ to, channel: 'sms' });
      assert.notEqual(fresh.sid, started.sid, 'a new start is a new verification');
    });

    it('cancels a verification: its status is canceled and a check no longer finds it', async () => {
      const to = `+${freshPhone()}`;
      const started = await verify().verifications.create({ to, channel: 'sms' });
      const code = await deliveredPin(h, pinIdOf(started.sid));
      const canceled = await verify().verifications(started.sid).update({ status: 'canceled' });
      assert.equal(canceled.status, 'canceled');
      assert.equal(canceled.valid, false);
      await rejectsWith(verify().verificationChecks.create({ to, code }), 404, 20404);
      await rejectsWith(verify().verifications(started.sid).update({ status: 'approved' }), 404, 20404);
      assert.notEqual((await verify().verifications.create({ to, channel: 'sms' })).sid, started.sid);
    });

    it('approves a verification by update: valid true, and a check no longer finds it', async () => {
      const to = `+${freshPhone()}`;
      const started = await verify().verifications.create({ to, channel: 'sms' });
      const code = await deliveredPin(h, pinIdOf(started.sid));
      const approved = await verify().verifications(started.sid).update({ status: 'approved' });
      assert.deepEqual([approved.status, approved.valid], ['approved', true]);
      await rejectsWith(verify().verificationChecks.create({ to, code }), 404, 20404);
    });

    it('lets a verification live 10 minutes: after that a check and a fetch answer 404 and a start is a new one', async () => {
      const to = `+${freshPhone()}`;
      const started = await verify().verifications.create({ to, channel: 'sms' });
      const code = await deliveredPin(h, pinIdOf(started.sid));
      h.clock.advance(9 * 60_000);
      assert.equal((await verify().verifications(started.sid).fetch()).status, 'pending');
      h.clock.advance(60_000);
      await rejectsWith(verify().verificationChecks.create({ to, code }), 404, 20404);
      await rejectsWith(verify().verifications(started.sid).fetch(), 404, 20404);
      assert.notEqual((await verify().verifications.create({ to, channel: 'sms' })).sid, started.sid);
    });

    it('sends by voice call and by email; the email code verifies', async () => {
      const call = await verify().verifications.create({ to: `+${freshPhone()}`, channel: 'call' });
      assert.equal(call.channel, 'call');
      await deliveredPin(h, pinIdOf(call.sid));
      const email = freshEmail();
      const started = await verify().verifications.create({ to: email, channel: 'email' });
      assert.deepEqual([started.channel, started.to], ['email', email]);
      const code = await deliveredPin(h, pinIdOf(started.sid));
      assert.equal((await verify().verificationChecks.create({ to: email, code })).status, 'approved');
    });

    it('accepts a start to a test number without delivering anything, and approves its fixed code only', async () => {
      const to = `+${freshPhone()}`;
      const added = await h.request('POST', '/api/v1/test-numbers', { body: { destination: to, code: '246810' } });
      assert.equal(added.status, 200, JSON.stringify(added.body));
      const started = await verify().verifications.create({ to, channel: 'sms' });
      assert.equal(started.status, 'pending');
      await h.node.worker.drain();
      const principal = await authenticate(h.node.store, `App ${h.keys.a}`);
      assert.ok(principal);
      assert.equal(h.node.inbox.list(principal.accountId, { limit: 1000 }).some((m) => m.pinId === pinIdOf(started.sid)), false, 'nothing delivered');
      const again = await verify().verifications.create({ to, channel: 'sms' });
      assert.equal(again.sid, started.sid, 'a second start is a resend of the same code');
      const wrong = await verify().verificationChecks.create({ to, code: '135791' });
      assert.deepEqual([wrong.status, wrong.valid], ['pending', false]);
      const right = await verify().verificationChecks.create({ to, code: '246810' });
      assert.deepEqual([right.status, right.valid], ['approved', true]);
      assert.equal((await h.request('DELETE', `/api/v1/test-numbers/${added.body.id}`)).status, 204);
    });

    it('answers Twilio\'s codes for wrong parameters', async () => {
      assert.equal((await rejectsWith(verify().verifications.create({ to: freshPhone(), channel: 'sms' }), 400, 60200)).message, 'Invalid parameter: To');
      assert.equal((await rejectsWith(verify().verifications.create({ to: `+${freshPhone()}`, channel: 'fax' }), 400, 60200)).message, 'Invalid parameter: Channel');
      await rejectsWith(verify().verificationChecks.create({ code: '123456' }), 400, 60221);
      await rejectsWith(verify().verificationChecks.create({ to: `+${freshPhone()}`, code: '123456' }), 404, 20404);
      await rejectsWith(client.verify.v2.services(`VA${'0'.repeat(32)}`).verifications.create({ to: `+${freshPhone()}`, channel: 'sms' }), 404, 20404);
      await rejectsWith(verify().verifications(`VE${'0'.repeat(32)}`).fetch(), 404, 20404);
    });
  });

  it('answered every request the SDK parsed with exactly the fields Twilio documents for it (run last)', () => {
    assert.ok(http.answers.length > 40, `${http.answers.length} answers recorded`);
    for (const answer of http.answers) {
      if (answer.statusCode >= 400) assertTwilioError(answer.body, answer.statusCode, (answer.body as { code: number }).code);
      else assertDocumentedFields(answer.method, answer.uri, answer.statusCode, answer.body);
    }
  });
});
