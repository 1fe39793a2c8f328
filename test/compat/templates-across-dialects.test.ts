// One template, every dialect: a template made through Vonage's API (@vonage/server-sdk), its
// fragments picked by the locale of a start made through Twilio's SDK (TemplateSid, Locale), Prelude's
// (options.template_id, options.locale), Infobip's messageId and our own API's `locale`, with the same
// fallback chain: the start's locale, then the language of the number's country, then the template's
// default text. What is asserted is the text that reaches the local inbox.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Prelude from '@prelude.so/sdk';
import { Auth } from '@vonage/auth';
import { Vonage } from '@vonage/server-sdk';
import twilio from 'twilio';
import { pinIdOfPreludeId } from '../../src/domain/prelude-ids.js';
import { applicationIdOf, pinIdOf } from '../../src/domain/twilio-sids.js';
import { authenticate } from '../../src/service/api-keys.js';
import { createHarness, deliveredText, type Harness } from '../support/harness.js';
import { freshPhone, spanishPhone } from '../support/http-assertions.js';

describe('templates with languages across dialects', () => {
  let h: Harness;
  let base: string;
  let accountId: string;
  let applicationId: string;
  let client: twilio.Twilio;
  let serviceSid: string;
  let templateId: string;
  let templateSid: string;
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

  const sentText = (pinId: string, channel = 'sms') => deliveredText(h, accountId, pinId, channel);

  before(async () => {
    h = await createHarness();
    await h.node.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.node.app.server.address() as AddressInfo).port}`;
    accountId = (await authenticate(h.node.store, `App ${h.keys.a}`))!.accountId;
    const accountSid = (await h.request('GET', '/api/v1/me')).body.accountSid as string;
    client = twilio(accountSid, h.keys.a);
    client.verify.baseUrl = base;
    // One application: a Twilio Service named Acme, the Vonage application and the account's Prelude application.
    serviceSid = (await client.verify.v2.services.create({ friendlyName: 'Acme' })).sid;
    applicationId = applicationIdOf(serviceSid)!;
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    assert.equal((await h.request('PUT', `/api/v1/vonage/applications/${applicationId}`, { body: { publicKey: pem } })).status, 200);
    assert.equal((await h.request('PUT', '/api/v1/prelude/settings', { body: { applicationId } })).status, 200);

    // The template, made through Vonage's SDK.
    const vonage = new Vonage(new Auth({ applicationId, privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() }), { apiHost: base }).verify2;
    templateId = (await vonage.createTemplate({ name: 'shared' } as never)).templateId!;
    await vonage.createTemplateFragment(templateId, { channel: 'sms', locale: 'es-es', text: 'Código de ${brand}: ${code}' } as never);
    await vonage.createTemplateFragment(templateId, { channel: 'sms', locale: 'de-de', text: 'Code für ${brand}: ${code}' } as never);
    await vonage.createTemplateFragment(templateId, { channel: 'voice', locale: 'de-de', text: 'Ihr Code: ${code}' } as never);
    templateSid = `HJ${templateId.replaceAll('-', '')}`;
  });
  after(async () => { await h.close(); });

  it('Twilio lists the template with its translations and sends the text of the start\'s Locale, else the number\'s country\'s, else the default', async () => {
    const listed = (await client.verify.v2.templates.list()).find((t) => t.sid === templateSid);
    assert.ok(listed, 'GET /v2/Templates lists the account\'s custom template');
    assert.equal(listed.friendlyName, 'shared');
    assert.deepEqual(Object.keys(listed.translations as object).sort(), ['de-de', 'en', 'es-es']);

    const start = (to: string, locale?: string, channel = 'sms') =>
      client.verify.v2.services(serviceSid).verifications.create({ to: `+${to}`, channel, templateSid, ...(locale ? { locale } : {}) });
    assert.equal(await sentText(pinIdOf((await start(freshPhone(), 'de')).sid)!), 'Code für Acme: CODE');
    assert.equal(await sentText(pinIdOf((await start(freshPhone(), 'de', 'call')).sid)!, 'voice'), 'Ihr Code: CODE');
    assert.equal(await sentText(pinIdOf((await start(spanishPhone())).sid)!), 'Código de Acme: CODE');
    assert.equal(await sentText(pinIdOf((await start(freshPhone())).sid)!), 'Your Acme verification code is: CODE.');
    // A SID that names no template of the Service's application is refused.
    const refused = await h.request('POST', `/v2/Services/${serviceSid}/Verifications`, {
      rawBody: `To=%2B${freshPhone()}&Channel=sms&TemplateSid=HJ${'0'.repeat(32)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 60200);
  });

  it('Prelude sends the text of options.locale for options.template_id (Vonage\'s id or the engine\'s), else the number\'s country\'s', async () => {
    const prelude = new Prelude({ apiToken: h.keys.a, baseURL: base });
    const german = await prelude.verification.create({ target: { type: 'phone_number', value: `+${freshPhone()}` }, options: { template_id: templateId, locale: 'de-DE' } });
    assert.equal(await sentText(pinIdOfPreludeId(german.id)!), 'Code für Acme: CODE');
    const spain = await prelude.verification.create({ target: { type: 'phone_number', value: `+${spanishPhone()}` }, options: { template_id: templateId.replaceAll('-', '').toUpperCase() } });
    assert.equal(await sentText(pinIdOfPreludeId(spain.id)!), 'Código de Acme: CODE');
  });

  it('Infobip\'s send with the template\'s messageId picks by the number\'s country; our own API\'s send takes a locale', async () => {
    const messageId = templateId.replaceAll('-', '').toUpperCase();
    const infobip = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: spanishPhone(), placeholders: { friendly_name: 'Acme' } } });
    assert.equal(infobip.status, 200, JSON.stringify(infobip.body));
    assert.equal(await sentText(infobip.body.pinId), 'Código de Acme: CODE');

    // A text of every channel added through /api/v1: the send's locale wins over the number's country.
    const texts = `/api/v1/applications/${applicationId}/messages/${messageId}/texts`;
    const french = await h.request('POST', texts, { body: { locale: 'fr', text: 'Votre code {{friendly_name}} : {{pin}}' } });
    assert.equal(french.status, 201, JSON.stringify(french.body));
    assert.deepEqual({ locale: french.body.locale, channel: french.body.channel }, { locale: 'fr', channel: null });
    const send = async (locale: string | undefined, path = '/2fa/2/pin', channel = 'sms') => {
      const sent = await h.request('POST', path, { body: { applicationId, messageId, to: spanishPhone(), placeholders: { friendly_name: 'Acme' }, ...(locale ? { locale } : {}) } });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      return sentText(sent.body.pinId, channel);
    };
    assert.equal(await send('fr-CA'), 'Votre code Acme : CODE');
    assert.equal(await send('fr', '/2fa/2/pin/voice', 'voice'), 'Votre code Acme : CODE', 'a text of every channel serves a call too');
    assert.equal(await send('ja'), 'Código de Acme: CODE', 'no Japanese text: the number\'s country');
    // Vonage lists it among the template's fragments, for every channel.
    const fragments = await h.request('GET', `/v2/verify/templates/${templateId}/template_fragments`, { vonageApplicationId: applicationId });
    assert.ok(fragments.body._embedded.template_fragments.some((f: { locale: string; channel: string; text: string }) => f.locale === 'fr' && f.channel === 'all' && f.text === 'Votre code ${brand} : ${code}'));

    assert.equal((await h.request('POST', texts, { body: { locale: 'FR', text: 'again {{pin}}' } })).status, 409, 'one text per locale and channel');
    const refused = await h.request('POST', texts, { body: { locale: 'it', text: 'no code here' } });
    assert.equal(refused.status, 400);
    assert.deepEqual(Object.keys(refused.body.requestError.serviceException.validationErrors), ['text']);
    assert.equal((await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: spanishPhone(), placeholders: { friendly_name: 'Acme' }, locale: 'not a locale' } })).status, 400);

    const updated = await h.request('PUT', `${texts}/${french.body.id}`, { body: { text: 'Code {{friendly_name}} : {{pin}}' } });
    assert.equal(updated.status, 200);
    assert.equal((await h.request('GET', `${texts}/${french.body.id}`)).body.text, 'Code {{friendly_name}} : {{pin}}');
    assert.equal(await send('fr'), 'Code Acme : CODE');
    assert.equal((await h.request('DELETE', `${texts}/${french.body.id}`)).status, 204);
    assert.equal((await h.request('GET', `${texts}/${french.body.id}`)).status, 404);
    assert.equal(await send('fr'), 'Código de Acme: CODE');
    assert.deepEqual((await h.request('GET', texts)).body.texts.map((t: { locale: string; channel: string }) => `${t.channel}:${t.locale}`), ['sms:es-es', 'sms:de-de', 'voice:de-de']);
  });

  it('fills a template\'s own placeholders from Twilio\'s TemplateCustomSubstitutions', async () => {
    const made = await h.request('POST', `/2fa/2/applications/${applicationId}/messages`, { body: { pinType: 'NUMERIC', pinLength: 6, messageText: 'Code {{pin}}, order {{order}}' } });
    assert.equal(made.status, 200);
    assert.equal((await h.request('POST', `/api/v1/applications/${applicationId}/messages/${made.body.messageId}/texts`, { body: { locale: 'it', channel: 'sms', text: 'Codice {{pin}}, ordine {{order}}' } })).status, 201);
    const start = await client.verify.v2.services(serviceSid).verifications.create({
      to: `+${freshPhone()}`, channel: 'sms', templateSid: `HJ${made.body.messageId.toLowerCase()}`, locale: 'it', templateCustomSubstitutions: JSON.stringify({ order: '42' }),
    });
    assert.equal(await sentText(pinIdOf(start.sid)!), 'Codice CODE, ordine 42');
  });
});
