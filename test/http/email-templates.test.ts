// /api/v1/email-templates: the service's own stand-in for the provider-side email template that a
// 2FA email message's emailTemplateId names.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, type Harness } from '../support/harness.js';
import { assertEnvelope, assertFieldError, forbid5xx } from '../support/http-assertions.js';

const KEYS = ['createdAt', 'from', 'html', 'id', 'name', 'subject', 'text', 'updatedAt'];

describe('email templates (/api/v1/email-templates)', () => {
  let h: Harness;
  before(async () => { h = forbid5xx(await createHarness()); });
  after(async () => { await h.close(); });

  const create = (body: unknown, key?: string) => h.request('POST', '/api/v1/email-templates', { body, ...(key ? { key } : {}) });

  it('create answers the template with an integer id and null for what was left out', async () => {
    const res = await create({ name: 'login', subject: 'Your code', text: 'Code {{pin}}' });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), KEYS);
    assert.ok(Number.isInteger(res.body.id) && res.body.id > 0, `id ${res.body.id}`);
    assert.deepEqual(res.body, {
      id: res.body.id, name: 'login', from: null, subject: 'Your code', html: null, text: 'Code {{pin}}',
      createdAt: h.clock.now, updatedAt: h.clock.now,
    });
  });

  it('stores every field given', async () => {
    const body = { name: 'full', from: 'Acme <no-reply@acme.example>', subject: 'Code {{pin}} for {{app}}', html: '<p>{{pin}}</p>', text: 'Code {{pin}}' };
    const res = await create(body);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { id: res.body.id, ...body, createdAt: res.body.createdAt, updatedAt: res.body.updatedAt });
  });

  it('the PIN placeholder may sit in the subject, the html or the text', async () => {
    assert.equal((await create({ name: 's', subject: 'Code {{pin}}', text: 'see subject' })).status, 200);
    assert.equal((await create({ name: 'h', subject: 'Code', html: '<b>{{pin}}</b>' })).status, 200);
    assert.equal((await create({ name: 't', subject: 'Code', text: '{{pin}}' })).status, 200);
  });

  it('get and list answer the stored template; ids are distinct integers', async () => {
    const one = await create({ name: 'one', subject: 'S', text: '{{pin}}' });
    const two = await create({ name: 'two', subject: 'S', html: '<i>{{pin}}</i>' });
    assert.notEqual(one.body.id, two.body.id);
    const got = await h.request('GET', `/api/v1/email-templates/${one.body.id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, one.body);
    const list = await h.request('GET', '/api/v1/email-templates');
    assert.equal(list.status, 200);
    assert.ok(Array.isArray(list.body));
    const ids = list.body.map((t: { id: number }) => t.id);
    assert.ok(ids.includes(one.body.id) && ids.includes(two.body.id));
    for (const t of list.body) assert.deepEqual(Object.keys(t).sort(), KEYS);
  });

  it('update replaces the whole template and moves updatedAt', async () => {
    const created = await create({ name: 'old', from: 'a@example.com', subject: 'Old', html: '<p>{{pin}}</p>', text: 'Old {{pin}}' });
    h.clock.advance(5_000);
    const updated = await h.request('PUT', `/api/v1/email-templates/${created.body.id}`, { body: { name: 'new', subject: 'New', text: 'New {{pin}}' } });
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.body, {
      id: created.body.id, name: 'new', from: null, subject: 'New', html: null, text: 'New {{pin}}',
      createdAt: created.body.createdAt, updatedAt: created.body.createdAt + 5_000,
    });
    assert.deepEqual((await h.request('GET', `/api/v1/email-templates/${created.body.id}`)).body, updated.body);
  });

  describe('validation', () => {
    it('refuses a template without {{pin}} anywhere', async () => {
      const res = await create({ name: 'nopin', subject: 'Hello', html: '<p>{{name}}</p>', text: 'Hello {{name}}' });
      assertEnvelope(res, 400, 'BAD_REQUEST');
      assertFieldError(res, 'text');
      assertEnvelope(await create({ name: 'spaced', subject: 'Hello', text: 'Code {{ pin }}' }), 400, 'BAD_REQUEST');
    });

    it('refuses a subject with a line break (header injection)', async () => {
      assertFieldError(await create({ name: 'crlf', subject: 'Code {{pin}}\r\nBcc: victim@example.com', text: '{{pin}}' }), 'subject');
      assertFieldError(await create({ name: 'lf', subject: 'Code\n{{pin}}', text: '{{pin}}' }), 'subject');
    });

    it('refuses a template with neither html nor text', async () => {
      assertEnvelope(await create({ name: 'empty', subject: 'Code {{pin}}' }), 400, 'BAD_REQUEST');
      assertEnvelope(await create({ name: 'nulls', subject: 'Code {{pin}}', html: null, text: null }), 400, 'BAD_REQUEST');
    });

    it('refuses a bad sender', async () => {
      for (const from of ['not an address', 'a@b', 'a@b.com\r\nBcc: c@d.com', 'Smith, Jane <jane@example.com>', '<>']) {
        assertFieldError(await create({ name: 'from', from, subject: 'S', text: '{{pin}}' }), 'from');
      }
    });

    it('requires name and subject, not blank, and checks types', async () => {
      assertFieldError(await create({ subject: 'S', text: '{{pin}}' }), 'name');
      assertFieldError(await create({ name: ' ', subject: 'S', text: '{{pin}}' }), 'name');
      assertFieldError(await create({ name: 'n', text: '{{pin}}' }), 'subject');
      assertFieldError(await create({ name: 'n', subject: '  ', text: '{{pin}}' }), 'subject');
      assertEnvelope(await create({ name: 'n', subject: 'S', text: 42 }), 400, 'BAD_REQUEST');
    });

    it('update validates like create and a refused update changes nothing', async () => {
      const created = await create({ name: 'keep', subject: 'S', text: '{{pin}}' });
      const url = `/api/v1/email-templates/${created.body.id}`;
      assertEnvelope(await h.request('PUT', url, { body: { name: 'keep', subject: 'S', text: 'no pin' } }), 400, 'BAD_REQUEST');
      assertFieldError(await h.request('PUT', url, { body: { name: 'keep', subject: 'S\r\nX: y', text: '{{pin}}' } }), 'subject');
      assertFieldError(await h.request('PUT', url, { body: { name: 'keep', text: '{{pin}}' } }), 'subject');
      assert.deepEqual((await h.request('GET', url)).body, created.body);
    });

    it('an id that is not a positive integer is a 400', async () => {
      for (const id of ['abc', '0', '-1', '1.5', '01']) {
        assertEnvelope(await h.request('GET', `/api/v1/email-templates/${id}`), 400, 'BAD_REQUEST');
      }
    });
  });

  describe('delete', () => {
    it('an unused template is deleted with 204, then is 404 everywhere', async () => {
      const created = await create({ name: 'bye', subject: 'S', text: '{{pin}}' });
      const url = `/api/v1/email-templates/${created.body.id}`;
      const deleted = await h.request('DELETE', url);
      assert.equal(deleted.status, 204);
      assert.equal(deleted.body, undefined);
      assertEnvelope(await h.request('GET', url), 404, 'NOT_FOUND');
      assertEnvelope(await h.request('PUT', url, { body: { name: 'n', subject: 'S', text: '{{pin}}' } }), 404, 'NOT_FOUND');
      assertEnvelope(await h.request('DELETE', url), 404, 'NOT_FOUND');
      const list = await h.request('GET', '/api/v1/email-templates');
      assert.ok(!list.body.some((t: { id: number }) => t.id === created.body.id));
    });

    it('a template a 2FA email message uses is a 409 CONFLICT and stays', async () => {
      const created = await create({ name: 'in use', subject: 'S', text: '{{pin}}' });
      const app = (await h.request('POST', '/2fa/2/applications', { body: { name: 'email app' } })).body.applicationId;
      const message = await h.request('POST', `/2fa/2/applications/${app}/email/messages`, { body: { emailTemplateId: created.body.id } });
      assert.equal(message.status, 200);
      assertEnvelope(await h.request('DELETE', `/api/v1/email-templates/${created.body.id}`), 409, 'CONFLICT');
      assert.deepEqual((await h.request('GET', `/api/v1/email-templates/${created.body.id}`)).body, created.body);

      // Once the message points elsewhere, the template can go.
      const other = await create({ name: 'other', subject: 'S', text: '{{pin}}' });
      const moved = await h.request('PUT', `/2fa/2/applications/${app}/email/messages/${message.body.messageId}`, { body: { emailTemplateId: other.body.id } });
      assert.equal(moved.status, 200);
      assert.equal((await h.request('DELETE', `/api/v1/email-templates/${created.body.id}`)).status, 204);
    });
  });

  describe('accounts are isolated', () => {
    it("account B gets 404 for account A's template on get, update and delete, like for a missing one", async () => {
      const created = await create({ name: 'A only', subject: 'S', text: '{{pin}}' });
      const id = created.body.id as number;
      const missing = 999_999_999;
      const b = h.keys.b;
      const pairs = [
        [await h.request('GET', `/api/v1/email-templates/${id}`, { key: b }), await h.request('GET', `/api/v1/email-templates/${missing}`, { key: b })],
        [await h.request('PUT', `/api/v1/email-templates/${id}`, { key: b, body: { name: 'x', subject: 'S', text: '{{pin}}' } }), await h.request('PUT', `/api/v1/email-templates/${missing}`, { key: b, body: { name: 'x', subject: 'S', text: '{{pin}}' } })],
        [await h.request('DELETE', `/api/v1/email-templates/${id}`, { key: b }), await h.request('DELETE', `/api/v1/email-templates/${missing}`, { key: b })],
      ];
      for (const [foreign, absent] of pairs) {
        assertEnvelope(foreign!, 404, 'NOT_FOUND');
        assertEnvelope(absent!, 404, 'NOT_FOUND');
        assert.equal(JSON.stringify(foreign!.body).replaceAll(String(id), '<id>'), JSON.stringify(absent!.body).replaceAll(String(missing), '<id>'));
      }
      const listB = await h.request('GET', '/api/v1/email-templates', { key: b });
      assert.ok(!listB.body.some((t: { id: number }) => t.id === id));
      assert.deepEqual((await h.request('GET', `/api/v1/email-templates/${id}`)).body, created.body, "A's template is untouched");
    });
  });
});
