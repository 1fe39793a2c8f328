// /2fa/2/applications: list, create, get, update, as Infobip clients call them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, type Harness } from '../support/harness.js';
import { MISSING_ID, assertEnvelope, assertFieldError, forbid5xx } from '../support/http-assertions.js';

const DEFAULTS = {
  pinAttempts: 10,
  allowMultiplePinVerifications: true,
  pinTimeToLive: '15m',
  verifyPinLimit: '1/3s',
  sendPinPerApplicationLimit: '10000/1d',
  sendPinPerPhoneNumberLimit: '3/1d',
};

describe('2FA applications', () => {
  let h: Harness;
  before(async () => { h = forbid5xx(await createHarness()); });
  after(async () => { await h.close(); });

  const create = (body: unknown, key?: string) => h.request('POST', '/2fa/2/applications', { body, ...(key ? { key } : {}) });
  const configWith = (configuration: Record<string, unknown>) => create({ name: 'limits', configuration });

  describe('create', () => {
    it('answers 200 with every default echoed when only a name is given', async () => {
      const res = await create({ name: 'only a name' });
      assert.equal(res.status, 200);
      assert.match(res.body.applicationId, /^[0-9A-F]{32}$/);
      assert.deepEqual(res.body, { applicationId: res.body.applicationId, name: 'only a name', configuration: DEFAULTS, enabled: true });
    });

    it("echoes Infobip's own example request (reference §3.2) back in full", async () => {
      const request = {
        name: '2fa application name',
        enabled: true,
        configuration: {
          pinAttempts: 5,
          allowMultiplePinVerifications: true,
          pinTimeToLive: '10m',
          verifyPinLimit: '2/4s',
          sendPinPerApplicationLimit: '5000/12h',
          sendPinPerPhoneNumberLimit: '2/1d',
        },
      };
      const res = await create(request);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { applicationId: res.body.applicationId, ...request });
    });

    it('fills only the configuration fields left out', async () => {
      const res = await create({ name: 'partial', enabled: false, configuration: { pinAttempts: 3, allowMultiplePinVerifications: false } });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.configuration, { ...DEFAULTS, pinAttempts: 3, allowMultiplePinVerifications: false });
      assert.equal(res.body.enabled, false);
    });

    it('treats zero values (0 and "") as "use the default", as the community Go SDK sends them', async () => {
      const res = await create({
        applicationId: '',
        name: 'go client',
        enabled: true,
        configuration: { pinAttempts: 0, allowMultiplePinVerifications: true, pinTimeToLive: '', verifyPinLimit: '', sendPinPerApplicationLimit: '', sendPinPerPhoneNumberLimit: '' },
      });
      assert.equal(res.status, 200);
      assert.match(res.body.applicationId, /^[0-9A-F]{32}$/, 'an applicationId in the body is ignored');
      assert.deepEqual(res.body.configuration, DEFAULTS);
    });

    it('ids are distinct per application', async () => {
      const one = await create({ name: 'one' });
      const two = await create({ name: 'two' });
      assert.notEqual(one.body.applicationId, two.body.applicationId);
    });
  });

  describe('validation', () => {
    it('accepts every time unit (ms, s, m, h, d), with or without a length', async () => {
      for (const ttl of ['500ms', '30s', '15m', '2h', '1d', 'm', 'h', 'd', 's', 'ms', '365d']) {
        const res = await configWith({ pinTimeToLive: ttl });
        assert.equal(res.status, 200, `pinTimeToLive ${ttl}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.configuration.pinTimeToLive, ttl);
      }
      for (const limit of ['1/500ms', '2/1s', '30/10s', '5/1m', '5/1h', '5/1d', '1/s', '1/d', '1/24h', '1/86400s']) {
        const res = await configWith({ verifyPinLimit: limit });
        assert.equal(res.status, 200, `verifyPinLimit ${limit}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.configuration.verifyPinLimit, limit);
      }
      for (const limit of ['10000/1d', '10000/3d', '5000/12h', '10/20m', '1/365d', '3/d']) {
        for (const field of ['sendPinPerApplicationLimit', 'sendPinPerPhoneNumberLimit']) {
          const res = await configWith({ [field]: limit });
          assert.equal(res.status, 200, `${field} ${limit}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.configuration[field], limit);
        }
      }
    });

    it('refuses malformed durations with validationErrors keyed configuration.pinTimeToLive', async () => {
      for (const ttl of ['1y', '0m', '15', '1w', '15 m', '-1m', '1.5h', 'M', '15min', '01m']) {
        const res = await configWith({ pinTimeToLive: ttl });
        assertFieldError(res, 'configuration.pinTimeToLive');
      }
    });

    it('refuses malformed limits with validationErrors keyed by the field', async () => {
      for (const field of ['verifyPinLimit', 'sendPinPerApplicationLimit', 'sendPinPerPhoneNumberLimit']) {
        for (const limit of ['3', '1d', '3/1y', '3/0d', '0/1d', '/1d', '3/', 'a/1d', '3/1d/', '3 / 1d']) {
          const res = await configWith({ [field]: limit });
          assertFieldError(res, `configuration.${field}`);
        }
      }
    });

    it('enforces the caps: TTL and send limits at most one year, verifyPinLimit at most one day', async () => {
      assertFieldError(await configWith({ pinTimeToLive: '366d' }), 'configuration.pinTimeToLive');
      assertFieldError(await configWith({ pinTimeToLive: '8761h' }), 'configuration.pinTimeToLive');
      assertFieldError(await configWith({ verifyPinLimit: '1/2d' }), 'configuration.verifyPinLimit');
      assertFieldError(await configWith({ verifyPinLimit: '1/25h' }), 'configuration.verifyPinLimit');
      assertFieldError(await configWith({ verifyPinLimit: '1/86401s' }), 'configuration.verifyPinLimit');
      assertFieldError(await configWith({ sendPinPerApplicationLimit: '1/366d' }), 'configuration.sendPinPerApplicationLimit');
      assertFieldError(await configWith({ sendPinPerPhoneNumberLimit: '1/366d' }), 'configuration.sendPinPerPhoneNumberLimit');
    });

    it('reports every invalid configuration field at once', async () => {
      const res = await configWith({ pinTimeToLive: '1y', verifyPinLimit: '1/2d', sendPinPerPhoneNumberLimit: 'x' });
      const se = assertEnvelope(res, 400, 'BAD_REQUEST');
      assert.deepEqual(Object.keys(se.validationErrors ?? {}).sort(), ['configuration.pinTimeToLive', 'configuration.sendPinPerPhoneNumberLimit', 'configuration.verifyPinLimit']);
    });

    it('refuses pinAttempts below 1 (other than the 0 quirk) or not a whole number', async () => {
      assertFieldError(await configWith({ pinAttempts: -1 }), 'configuration.pinAttempts');
      assertFieldError(await configWith({ pinAttempts: 1.5 }), 'configuration.pinAttempts');
    });

    it('refuses wrong types without coercing them', async () => {
      assertFieldError(await create({ name: 5 }), 'name');
      assertFieldError(await create({ name: 'x', enabled: 'true' }), 'enabled');
      assertFieldError(await create({ name: 'x', configuration: { pinAttempts: '5' } }), 'configuration.pinAttempts');
      assertFieldError(await create({ name: 'x', configuration: { allowMultiplePinVerifications: 'false' } }), 'configuration.allowMultiplePinVerifications');
      assertFieldError(await create({ name: 'x', configuration: { pinTimeToLive: 15 } }), 'configuration.pinTimeToLive');
      assertEnvelope(await create({ name: 'x', configuration: 'default' }), 400, 'BAD_REQUEST');
    });

    it('requires a non-blank name', async () => {
      assertFieldError(await create({}), 'name');
      assertFieldError(await create({ configuration: {} }), 'name');
      assertFieldError(await create({ name: '' }), 'name');
      assertFieldError(await create({ name: '   ' }), 'name');
    });

    it('caps the name length and pinAttempts', async () => {
      assert.equal((await create({ name: 'x'.repeat(255) })).status, 200);
      assertFieldError(await create({ name: 'x'.repeat(256) }), 'name');
      assert.equal((await configWith({ pinAttempts: 1000 })).status, 200);
      assertFieldError(await configWith({ pinAttempts: 1001 }), 'configuration.pinAttempts');
      assertFieldError(await configWith({ sendPinPerPhoneNumberLimit: '99999999999999999999/1d' }), 'configuration.sendPinPerPhoneNumberLimit');
      assertFieldError(await configWith({ pinTimeToLive: '9999999999999999999999m' }), 'configuration.pinTimeToLive');
    });

    it('refuses a body that is not an object', async () => {
      assertEnvelope(await create([]), 400, 'BAD_REQUEST');
      assertEnvelope(await create('name'), 400, 'BAD_REQUEST');
    });

    it('a refused create leaves nothing behind', async () => {
      const before = await h.request('GET', '/2fa/2/applications');
      assertFieldError(await create({ name: 'ghost', configuration: { pinTimeToLive: '1y' } }), 'configuration.pinTimeToLive');
      const after = await h.request('GET', '/2fa/2/applications');
      assert.equal(after.body.length, before.body.length);
      assert.ok(!after.body.some((a: { name: string }) => a.name === 'ghost'));
    });
  });

  describe('get and list', () => {
    it('get answers the application exactly as create did', async () => {
      const created = await create({ name: 'to read', configuration: { pinAttempts: 7, pinTimeToLive: '5m' } });
      const got = await h.request('GET', `/2fa/2/applications/${created.body.applicationId}`);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, created.body);
    });

    it('list answers an array of full application objects, including the ones just made', async () => {
      const created = await create({ name: 'listed', enabled: false, configuration: { verifyPinLimit: '30/10s' } });
      const list = await h.request('GET', '/2fa/2/applications');
      assert.equal(list.status, 200);
      assert.ok(Array.isArray(list.body));
      const found = list.body.find((a: { applicationId: string }) => a.applicationId === created.body.applicationId);
      assert.deepEqual(found, created.body);
      for (const app of list.body) {
        assert.deepEqual(Object.keys(app).sort(), ['applicationId', 'configuration', 'enabled', 'name']);
        assert.deepEqual(Object.keys(app.configuration).sort(), Object.keys(DEFAULTS).sort());
      }
    });

    it('tolerates a trailing slash', async () => {
      const created = await create({ name: 'slash' });
      const list = await h.request('GET', '/2fa/2/applications/');
      assert.equal(list.status, 200);
      assert.ok(list.body.some((a: { applicationId: string }) => a.applicationId === created.body.applicationId));
      const one = await h.request('GET', `/2fa/2/applications/${created.body.applicationId}/`);
      assert.equal(one.status, 200);
      assert.deepEqual(one.body, created.body);
    });

    it('an unknown applicationId is a 404 NOT_FOUND envelope', async () => {
      assertEnvelope(await h.request('GET', `/2fa/2/applications/${MISSING_ID}`), 404, 'NOT_FOUND');
      assertEnvelope(await h.request('PUT', `/2fa/2/applications/${MISSING_ID}`, { body: { name: 'x' } }), 404, 'NOT_FOUND');
    });
  });

  describe('update (PUT merges)', () => {
    it('keeps every field the body leaves out', async () => {
      const created = await create({ name: 'before', enabled: false, configuration: { pinAttempts: 4, pinTimeToLive: '2h', verifyPinLimit: '2/1s', sendPinPerApplicationLimit: '100/1h', sendPinPerPhoneNumberLimit: '5/1h', allowMultiplePinVerifications: false } });
      const id = created.body.applicationId;
      const renamed = await h.request('PUT', `/2fa/2/applications/${id}`, { body: { name: 'after' } });
      assert.equal(renamed.status, 200);
      assert.deepEqual(renamed.body, { ...created.body, name: 'after' });

      const one = await h.request('PUT', `/2fa/2/applications/${id}`, { body: { name: 'after', configuration: { pinAttempts: 6 } } });
      assert.equal(one.status, 200);
      assert.deepEqual(one.body, { ...created.body, name: 'after', configuration: { ...created.body.configuration, pinAttempts: 6 } });

      const got = await h.request('GET', `/2fa/2/applications/${id}`);
      assert.deepEqual(got.body, one.body, 'the update is stored');
    });

    it('ignores an applicationId in the body', async () => {
      const created = await create({ name: 'fixed id' });
      const res = await h.request('PUT', `/2fa/2/applications/${created.body.applicationId}`, { body: { applicationId: MISSING_ID, name: 'fixed id' } });
      assert.equal(res.status, 200);
      assert.equal(res.body.applicationId, created.body.applicationId);
      assertEnvelope(await h.request('GET', `/2fa/2/applications/${MISSING_ID}`), 404, 'NOT_FOUND');
    });

    it('changes enabled only when given', async () => {
      const id = (await create({ name: 'toggle' })).body.applicationId;
      const off = await h.request('PUT', `/2fa/2/applications/${id}`, { body: { name: 'toggle', enabled: false } });
      assert.equal(off.body.enabled, false);
      const kept = await h.request('PUT', `/2fa/2/applications/${id}`, { body: { name: 'toggle' } });
      assert.equal(kept.body.enabled, false);
      const on = await h.request('PUT', `/2fa/2/applications/${id}`, { body: { name: 'toggle', enabled: true } });
      assert.equal(on.body.enabled, true);
    });

    it('zero values in an update keep the current values, not the defaults', async () => {
      const created = await create({ name: 'custom', configuration: { pinAttempts: 4, pinTimeToLive: '2h', verifyPinLimit: '2/1s', sendPinPerApplicationLimit: '100/1h', sendPinPerPhoneNumberLimit: '5/1h' } });
      const res = await h.request('PUT', `/2fa/2/applications/${created.body.applicationId}`, {
        body: { name: 'custom', configuration: { pinAttempts: 0, pinTimeToLive: '', verifyPinLimit: '', sendPinPerApplicationLimit: '', sendPinPerPhoneNumberLimit: '' } },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.configuration, created.body.configuration);
    });

    it('requires the name, validates like create, and a refused update changes nothing', async () => {
      const created = await create({ name: 'stable' });
      const id = created.body.applicationId;
      assertFieldError(await h.request('PUT', `/2fa/2/applications/${id}`, { body: { configuration: { pinAttempts: 3 } } }), 'name');
      assertFieldError(await h.request('PUT', `/2fa/2/applications/${id}`, { body: { name: 'stable', configuration: { pinAttempts: 3, pinTimeToLive: '2y' } } }), 'configuration.pinTimeToLive');
      assertFieldError(await h.request('PUT', `/2fa/2/applications/${id}`, { body: { name: 'renamed', configuration: { verifyPinLimit: '1/2d' } } }), 'configuration.verifyPinLimit');
      assertFieldError(await h.request('PUT', `/2fa/2/applications/${id}`, { body: { name: 'stable', enabled: 'false' } }), 'enabled');
      const got = await h.request('GET', `/2fa/2/applications/${id}`);
      assert.deepEqual(got.body, created.body);
    });
  });

  describe('accounts are isolated', () => {
    it("account B cannot list, get or update account A's application, and the 404 is that of a missing id", async () => {
      const created = await create({ name: 'private to A' });
      const id = created.body.applicationId;

      const listB = await h.request('GET', '/2fa/2/applications', { key: h.keys.b });
      assert.equal(listB.status, 200);
      assert.ok(!listB.body.some((a: { applicationId: string }) => a.applicationId === id));

      const otherGet = await h.request('GET', `/2fa/2/applications/${id}`, { key: h.keys.b });
      const missingGet = await h.request('GET', `/2fa/2/applications/${MISSING_ID}`, { key: h.keys.b });
      assertEnvelope(otherGet, 404, 'NOT_FOUND');
      assertEnvelope(missingGet, 404, 'NOT_FOUND');
      assert.equal(JSON.stringify(otherGet.body).replaceAll(id, '<id>'), JSON.stringify(missingGet.body).replaceAll(MISSING_ID, '<id>'));

      const otherPut = await h.request('PUT', `/2fa/2/applications/${id}`, { key: h.keys.b, body: { name: 'hijacked', enabled: false } });
      const missingPut = await h.request('PUT', `/2fa/2/applications/${MISSING_ID}`, { key: h.keys.b, body: { name: 'hijacked', enabled: false } });
      assertEnvelope(otherPut, 404, 'NOT_FOUND');
      assert.equal(JSON.stringify(otherPut.body).replaceAll(id, '<id>'), JSON.stringify(missingPut.body).replaceAll(MISSING_ID, '<id>'));

      const stillA = await h.request('GET', `/2fa/2/applications/${id}`);
      assert.deepEqual(stillA.body, created.body, "A's application is untouched");
    });

    it("account B's applications do not show in A's list", async () => {
      const b = await create({ name: 'private to B' }, h.keys.b);
      assert.equal(b.status, 200);
      const listA = await h.request('GET', '/2fa/2/applications');
      assert.ok(!listA.body.some((a: { applicationId: string }) => a.applicationId === b.body.applicationId));
    });
  });
});
