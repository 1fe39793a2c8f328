// Vonage Verify v2's templates and template fragments through Vonage's official Node SDK
// (@vonage/server-sdk's Verify2 template methods), against a real twofa server: the answers the SDK
// reads, Vonage's problems on each refusal, and a start's `template_id` and `locale` picking the
// fragment whose text reaches the local inbox. With TWOFA_TEST_DATABASE=postgres the node runs on PostgreSQL.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Auth } from '@vonage/auth';
import { Vonage } from '@vonage/server-sdk';
import { pinIdOfVonageRequestId } from '../../src/domain/vonage-ids.js';
import { authenticate } from '../../src/service/api-keys.js';
import { createAppAndTemplate, createHarness, deliveredText, type Harness } from '../support/harness.js';
import { freshPhone, spanishPhone } from '../support/http-assertions.js';

type Rejection = Error & { response?: Response };

async function rejection(promise: Promise<unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    await promise;
  } catch (err) {
    const response = (err as Rejection).response;
    assert.ok(response, `a rejection carrying the answer, not ${String(err)}`);
    return { status: response.status, body: await response.json() as Record<string, unknown> };
  }
  assert.fail('expected the SDK to reject');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('Vonage Verify v2 templates through the official Node SDK', () => {
  let h: Harness;
  let base: string;
  let applicationId: string;
  let accountId: string;
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keys = { publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
  const verify2 = () => new Vonage(new Auth({ applicationId, privateKey: keys.privateKey }), { apiHost: base }).verify2;

  const sentText = (requestId: string, channel = 'sms') => deliveredText(h, accountId, pinIdOfVonageRequestId(requestId)!, channel);

  before(async () => {
    h = await createHarness();
    await h.node.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.node.app.server.address() as AddressInfo).port}`;
    accountId = (await authenticate(h.node.store, `App ${h.keys.a}`))!.accountId;
  });
  after(async () => { await h.close(); });
  beforeEach(async () => {
    applicationId = (await createAppAndTemplate(h)).applicationId;
    assert.equal((await h.request('PUT', `/api/v1/vonage/applications/${applicationId}`, { body: { publicKey: keys.publicKey } })).status, 200);
  });

  it('creates, reads, renames, lists and deletes templates; 409 for a name taken, 404 once deleted', async () => {
    const client = verify2();
    const created = await client.createTemplate({ name: 'login' } as never);
    assert.match(String(created.templateId), UUID);
    assert.equal(created.name, 'login');
    assert.equal(created.isDefault, false);
    assert.deepEqual(await client.getTemplate(created.templateId!), created);

    const taken = await rejection(client.createTemplate({ name: 'login' } as never));
    assert.equal(taken.status, 409);
    assert.match(String(taken.body['type']), /verify-v2#template-exists$/);

    const renamed = await client.updateTemplate({ templateId: created.templateId, name: 'sign-in', isDefault: true } as never);
    assert.deepEqual({ name: renamed.name, isDefault: renamed.isDefault }, { name: 'sign-in', isDefault: true });
    await client.createTemplate({ name: 'second' } as never);
    await client.createTemplate({ name: 'third' } as never);
    const page = await client.getTemplatePage({ page: 1, pageSize: 2 } as never);
    assert.deepEqual({ totalItems: page.totalItems, totalPages: page.totalPages, onPage: (page as unknown as { templates: unknown[] }).templates.length }, { totalItems: 3, totalPages: 2, onPage: 2 });
    const all: string[] = [];
    // The SDK's generator counts pages itself and stops where `next` is absent.
    for await (const template of client.listAllTemplates({ pageSize: 2 } as never)) all.push(String(template.name));
    assert.deepEqual(all.sort(), ['second', 'sign-in', 'third']);

    assert.equal(await client.deleteTemplate(created.templateId!), true);
    const gone = await rejection(client.getTemplate(created.templateId!));
    assert.equal(gone.status, 404);
    assert.match(String(gone.body['type']), /verify-v2#template-not-found$/);
    // The application's plain message templates (Infobip's) are no Vonage templates.
    assert.equal((await rejection(client.getTemplate('00000000-0000-0000-0000-000000000000'))).status, 404);
  });

  it('adds, reads, edits, lists and deletes fragments; 409 for a channel and locale taken and for a template with fragments; 422 for a text without ${code}', async () => {
    const client = verify2();
    const { templateId } = await client.createTemplate({ name: 'fragments' } as never);
    const fragment = await client.createTemplateFragment(templateId!, { channel: 'sms', locale: 'es-mx', text: 'Tu código de ${brand} es ${code}' } as never);
    assert.match(String(fragment.templateFragmentId), UUID);
    assert.deepEqual({ channel: fragment.channel, locale: fragment.locale, text: fragment.text }, { channel: 'sms', locale: 'es-mx', text: 'Tu código de ${brand} es ${code}' });
    assert.ok(!Number.isNaN(Date.parse(String(fragment.dateCreated))));

    const again = await rejection(client.createTemplateFragment(templateId!, { channel: 'sms', locale: 'ES_MX', text: 'x ${code}' } as never));
    assert.equal(again.status, 409);
    assert.match(String(again.body['type']), /verify-v2#fragment-exists$/);
    await client.createTemplateFragment(templateId!, { channel: 'voice', locale: 'es-mx', text: 'Su código es ${code}' } as never);

    const noCode = await h.request('POST', `/v2/verify/templates/${templateId}/template_fragments`, { vonageApplicationId: applicationId, body: { channel: 'sms', locale: 'fr-fr', text: 'Bonjour' } });
    assert.equal(noCode.status, 422);
    assert.deepEqual(noCode.body.invalid_parameters.map((p: { name: string }) => p.name), ['text']);
    const badLocale = await h.request('POST', `/v2/verify/templates/${templateId}/template_fragments`, { vonageApplicationId: applicationId, body: { channel: 'sms', locale: 'not a locale', text: '${code}' } });
    assert.equal(badLocale.status, 422);

    const edited = await client.updateTemplateFragment(templateId!, { templateFragmentId: fragment.templateFragmentId, text: 'Código ${brand}: ${code}' } as never);
    assert.equal((edited as unknown as { text: string }).text, 'Código ${brand}: ${code}', 'the SDK types the answer as a Template; it is the fragment');
    assert.equal((await client.getTemplateFragment(templateId!, fragment.templateFragmentId!)).text, 'Código ${brand}: ${code}');
    const listed: string[] = [];
    for await (const f of client.listAllTemplateFragments({ templateId: templateId!, pageSize: 1 } as never)) listed.push(`${f.channel}:${f.locale}`);
    assert.deepEqual(listed.sort(), ['sms:es-mx', 'voice:es-mx']);

    const notEmpty = await rejection(client.deleteTemplate(templateId!));
    assert.equal(notEmpty.status, 409);
    assert.match(String(notEmpty.body['type']), /verify-v2#not-empty-template$/);
    assert.equal(await client.deleteTemplateFragment(templateId!, fragment.templateFragmentId!), true);
    const goneFragment = await rejection(client.getTemplateFragment(templateId!, fragment.templateFragmentId!));
    assert.equal(goneFragment.status, 404);
    assert.match(String(goneFragment.body['type']), /verify-v2#template-fragment-not-found$/);
  });

  it('sends the fragment of the start\'s locale, else of the number\'s country\'s language, else the template\'s default text', async () => {
    const client = verify2();
    const { templateId } = await client.createTemplate({ name: 'localized' } as never);
    await client.createTemplateFragment(templateId!, { channel: 'sms', locale: 'de-de', text: 'Ihr ${brand}-Code: ${code}' } as never);
    await client.createTemplateFragment(templateId!, { channel: 'sms', locale: 'es-es', text: 'Tu código de ${brand} es ${code} (${time-limit} ${time-limit-unit})' } as never);
    await client.createTemplateFragment(templateId!, { channel: 'voice', locale: 'de-de', text: 'Ihr Code lautet ${code}' } as never);
    const start = (to: string, locale?: string, channel = 'sms') => client.newRequest({ brand: 'Acme', templateId, workflow: [{ channel, to }], ...(locale ? { locale } : {}) } as never);

    // The start's locale: exactly, or by its language.
    assert.equal(await sentText((await start(freshPhone(), 'de-de')).requestId), 'Ihr Acme-Code: CODE');
    assert.equal(await sentText((await start(freshPhone(), 'de-at')).requestId), 'Ihr Acme-Code: CODE');
    // A voice call gets the voice fragment.
    assert.equal(await sentText((await start(freshPhone(), 'de-de', 'voice')).requestId, 'voice'), 'Ihr Code lautet CODE');
    // No fragment for the locale: the language of the number's country (a Spanish number).
    assert.equal(await sentText((await start(spanishPhone(), 'it-it')).requestId), 'Tu código de Acme es CODE (15 minutes)');
    assert.equal(await sentText((await start(spanishPhone())).requestId), 'Tu código de Acme es CODE (15 minutes)');
    // Neither (a Swiss number, no locale): the template's default text.
    assert.equal(await sentText((await start(freshPhone())).requestId), 'Your Acme verification code is: CODE.');

    // The default template serves starts that name none.
    await client.updateTemplate({ templateId, isDefault: true } as never);
    assert.equal(await sentText((await client.newRequest({ brand: 'Acme', locale: 'de-de', workflow: [{ channel: 'sms', to: freshPhone() }] } as never)).requestId), 'Ihr Acme-Code: CODE');
    await client.updateTemplate({ templateId, isDefault: false } as never);
    assert.equal(await sentText((await client.newRequest({ brand: 'Acme', locale: 'de-de', workflow: [{ channel: 'sms', to: freshPhone() }] } as never)).requestId), 'Ihr Acme-Bestätigungscode lautet: CODE.');
  });

  it('sends a workflow\'s later channel with that channel\'s fragment of the start\'s locale', async () => {
    const client = verify2();
    const { templateId } = await client.createTemplate({ name: 'workflow' } as never);
    await client.createTemplateFragment(templateId!, { channel: 'sms', locale: 'es-es', text: 'SMS de ${brand}: ${code}' } as never);
    await client.createTemplateFragment(templateId!, { channel: 'voice', locale: 'es-es', text: 'Llamada de ${brand}: ${code}' } as never);
    const to = freshPhone();
    const { requestId } = await client.newRequest({ brand: 'Acme', templateId, locale: 'es-es', workflow: [{ channel: 'sms', to }, { channel: 'voice', to }] } as never);
    assert.equal(await sentText(requestId), 'SMS de Acme: CODE');
    assert.equal(await client.nextWorkflow(requestId), true);
    await h.node.workflows.runDue();
    assert.equal(await sentText(requestId, 'voice'), 'Llamada de Acme: CODE');
  });

  it('keeps every fragment of concurrent creates: each edit of the texts is a compare-and-set, retried on a conflict', async () => {
    const client = verify2();
    const { templateId } = await client.createTemplate({ name: 'concurrent' } as never);
    const locales = ['de-de', 'es-es', 'fr-fr', 'it-it', 'nl-nl', 'pt-pt', 'sv-se', 'da-dk'];
    await Promise.all(locales.map((locale) => client.createTemplateFragment(templateId!, { channel: 'sms', locale, text: `${locale} \${code}` } as never)));
    // The same channel and locale at once: one is created, the others are 409.
    const same = await Promise.allSettled(Array.from({ length: 4 }, () => client.createTemplateFragment(templateId!, { channel: 'voice', locale: 'de-de', text: 'x ${code}' } as never)));
    assert.equal(same.filter((s) => s.status === 'fulfilled').length, 1);
    const listed: string[] = [];
    for await (const f of client.listAllTemplateFragments({ templateId: templateId!, pageSize: 100 } as never)) listed.push(`${f.channel}:${f.locale}`);
    assert.deepEqual(listed.sort(), [...locales.map((l) => `sms:${l}`), 'voice:de-de'].sort());
  });

  it('refuses a template_id the application does not have, and one on an email workflow: 422', async () => {
    const { templateId } = await verify2().createTemplate({ name: 'phone-only' } as never);
    for (const [body, name] of [
      [{ brand: 'Acme', template_id: '00000000-0000-0000-0000-000000000001', workflow: [{ channel: 'sms', to: freshPhone() }] }, 'template_id'],
      [{ brand: 'Acme', template_id: templateId, workflow: [{ channel: 'email', to: 'someone@example.com' }] }, 'template_id'],
    ] as const) {
      const answer = await h.request('POST', '/v2/verify', { vonageApplicationId: applicationId, body });
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.invalid_parameters.map((p: { name: string }) => p.name), [name]);
    }
  });
});
