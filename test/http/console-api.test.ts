// The console's own API operations: who am I (sign-in), the account's API keys, the PIN search and the
// statistics; each seen only by its own account. And the console's files at /console.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CONSOLE_DIRS } from '../../src/http/routes/console.js';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { assertEnvelope, assertFieldError, createEmailMessage, forbid5xx, freshEmail, freshPhone } from '../support/http-assertions.js';

describe('console API: /api/v1/me, /api/v1/keys, /api/v1/pins, /api/v1/stats', () => {
  let h: Harness;
  before(async () => { h = forbid5xx(await createHarness()); });
  after(async () => { await h.close(); });

  describe('GET /api/v1/me', () => {
    it('names the account and the calling key with its scopes, for any valid key', async () => {
      const me = await h.request('GET', '/api/v1/me');
      assert.equal(me.status, 200);
      assert.equal(me.body.accountName, 'account-a');
      assert.deepEqual(me.body.key.scopes, ['2fa:manage', '2fa:pin:send']);
      assert.equal(me.body.key.prefix, h.keys.a.slice(0, me.body.key.prefix.length));
      assert.ok(!JSON.stringify(me.body).includes(h.keys.a), 'never the key itself');
      const sendOnly = await h.request('GET', '/api/v1/me', { key: h.keys.sendOnly });
      assert.equal(sendOnly.status, 200);
      assert.deepEqual(sendOnly.body.key.scopes, ['2fa:pin:send']);
      assert.equal((await h.request('GET', '/api/v1/me', { key: h.keys.b })).body.accountName, 'account-b');
      assertEnvelope(await h.request('GET', '/api/v1/me', { key: null }), 401, 'UNAUTHORIZED');
    });
  });

  describe('API keys', () => {
    it('creates a key shown once, lists keys without the key, revokes; an account sees only its own keys', async () => {
      const created = await h.request('POST', '/api/v1/keys', { body: { label: ' CI pipeline ', scopes: ['2fa:pin:send'] } });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.headers['cache-control'], 'no-store');
      assert.match(created.body.key, /^tfa_/);
      assert.equal(created.body.label, 'CI pipeline');
      assert.deepEqual(created.body.scopes, ['2fa:pin:send']);
      assert.equal(created.body.revokedAt, null);
      assert.ok(created.body.key.startsWith(created.body.prefix));

      // The new key works, with exactly its scopes, in the same account.
      const me = await h.request('GET', '/api/v1/me', { key: created.body.key });
      assert.equal(me.body.accountName, 'account-a');
      assertEnvelope(await h.request('GET', '/2fa/2/applications', { key: created.body.key }), 403, 'FORBIDDEN');

      const list = await h.request('GET', '/api/v1/keys');
      assert.equal(list.status, 200);
      const ids = list.body.keys.map((k: { id: string }) => k.id);
      assert.ok(ids.includes(created.body.id));
      assert.ok(!JSON.stringify(list.body).includes(created.body.key), 'the list never holds a key');
      const ofB = await h.request('GET', '/api/v1/keys', { key: h.keys.b });
      assert.equal(ofB.body.keys.length, 1, 'account b sees its one key only');
      assert.ok(!ofB.body.keys.some((k: { id: string }) => ids.includes(k.id)));

      // Another account's key is not found; the calling key cannot revoke itself.
      assertEnvelope(await h.request('DELETE', `/api/v1/keys/${created.body.id}`, { key: h.keys.b }), 404, 'NOT_FOUND');
      const own = (await h.request('GET', '/api/v1/me')).body.key.id as string;
      assertEnvelope(await h.request('DELETE', `/api/v1/keys/${own}`), 409, 'CONFLICT');
      assertEnvelope(await h.request('DELETE', '/api/v1/keys/no-such-key'), 404, 'NOT_FOUND');

      const revoked = await h.request('DELETE', `/api/v1/keys/${created.body.id}`);
      assert.equal(revoked.status, 204);
      assert.equal((await h.request('DELETE', `/api/v1/keys/${created.body.id}`)).status, 204, 'revoking twice is harmless');
      assertEnvelope(await h.request('GET', '/api/v1/me', { key: created.body.key }), 401, 'UNAUTHORIZED');
      const after = (await h.request('GET', '/api/v1/keys')).body.keys.find((k: { id: string }) => k.id === created.body.id);
      assert.equal(typeof after.revokedAt, 'number');
    });

    it('checks the body and the scope', async () => {
      assertFieldError(await h.request('POST', '/api/v1/keys', { body: { scopes: [] } }), 'scopes');
      assertFieldError(await h.request('POST', '/api/v1/keys', { body: { scopes: ['admin'] } }), 'scopes.0');
      assertFieldError(await h.request('POST', '/api/v1/keys', { body: { label: 'x' } }), 'scopes');
      assertFieldError(await h.request('POST', '/api/v1/keys', { body: { label: 'x'.repeat(101), scopes: ['2fa:manage'] } }), 'label');
      for (const [method, url, body] of [['GET', '/api/v1/keys'], ['POST', '/api/v1/keys', { scopes: ['2fa:manage'] }], ['DELETE', '/api/v1/keys/x']] as const) {
        assertEnvelope(await h.request(method, url, { key: h.keys.sendOnly, ...(body ? { body } : {}) }), 403, 'FORBIDDEN');
      }
    });
  });

  describe('GET /api/v1/pins and GET /api/v1/stats', () => {
    let app: { applicationId: string; messageId: string };
    let other: { applicationId: string; messageId: string };
    const phones = [freshPhone(), freshPhone(), freshPhone()];
    const email = freshEmail();
    const pinIds: string[] = [];
    let verifiedPin = '';
    let start = 0;

    before(async () => {
      start = h.clock.now;
      app = await createAppAndTemplate(h);
      other = await createAppAndTemplate(h);
      for (const to of phones) {
        const sent = await h.request('POST', '/2fa/2/pin', { body: { ...app, to } });
        assert.equal(sent.status, 200);
        pinIds.push(sent.body.pinId);
        h.clock.advance(1000);
      }
      const { messageId } = await createEmailMessage(h, other.applicationId);
      const mailed = await h.request('POST', '/2fa/2/pin/email', { body: { applicationId: other.applicationId, messageId, to: email } });
      assert.equal(mailed.status, 200);
      pinIds.push(mailed.body.pinId);
      h.clock.advance(1000);
      verifiedPin = await deliveredPin(h, pinIds[1]!);
      const verified = await h.request('POST', `/2fa/2/pin/${pinIds[1]}/verify`, { body: { pin: verifiedPin } });
      assert.equal(verified.body.verified, true);
    });

    it('lists the account\'s PINs newest first with state and delivery, never the PIN', async () => {
      const list = await h.request('GET', '/api/v1/pins');
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.pins.map((p: { pinId: string }) => p.pinId), [...pinIds].reverse());
      assert.equal(list.body.nextCursor, null);
      const verified = list.body.pins.find((p: { pinId: string }) => p.pinId === pinIds[1]);
      assert.equal(verified.state, 'verified');
      assert.equal(verified.to, phones[1]);
      assert.equal(verified.country, 'CH');
      assert.equal(verified.applicationName, 'test app');
      assert.equal(verified.deliveryStatus, 'sent');
      assert.equal(typeof verified.verifiedAt, 'number');
      const mailed = list.body.pins[0];
      assert.equal(mailed.channel, 'email');
      assert.equal(mailed.country, null);
      const text = JSON.stringify(list.body);
      assert.ok(!text.includes(verifiedPin) || verifiedPin.length < 6, 'never the PIN');
      assert.doesNotMatch(text, /pinHash|pin_hash|ciphertext/i);
    });

    it('searches by destination, application, channel, status and date', async () => {
      const ids = async (query: string) => (await h.request('GET', `/api/v1/pins?${query}`)).body.pins.map((p: { pinId: string }) => p.pinId);
      assert.deepEqual(await ids(`to=${phones[2]}`), [pinIds[2]]);
      // As an operator types it: a plus, spaces and dashes; or a part of it.
      const spaced = `+${phones[0]!.slice(0, 2)} ${phones[0]!.slice(2, 4)} ${phones[0]!.slice(4, 7)}-${phones[0]!.slice(7)}`;
      assert.deepEqual(await ids(`to=${encodeURIComponent(spaced)}`), [pinIds[0]]);
      assert.deepEqual(await ids(`to=${encodeURIComponent(email.split('@')[0]!.toUpperCase())}`), [pinIds[3]]);
      assert.deepEqual(await ids('to=%25'), [], 'LIKE wildcards are literal');
      assert.deepEqual(await ids(`applicationId=${other.applicationId}`), [pinIds[3]]);
      assert.deepEqual(await ids('channel=email'), [pinIds[3]]);
      assert.deepEqual(await ids('status=verified'), [pinIds[1]]);
      assert.deepEqual(await ids('status=pending'), [pinIds[3], pinIds[2], pinIds[0]]);
      assert.deepEqual(await ids(`since=${start + 1000}&until=${start + 3000}`), [pinIds[2], pinIds[1]]);
      assertFieldError(await h.request('GET', '/api/v1/pins?status=lost'), 'status');
      assertFieldError(await h.request('GET', '/api/v1/pins?since=5&until=5'), 'until');
      assertFieldError(await h.request('GET', '/api/v1/pins?limit=abc'), 'limit');
      assertFieldError(await h.request('GET', '/api/v1/pins?limit=101'), 'limit');
    });

    it('pages with a cursor', async () => {
      const first = await h.request('GET', '/api/v1/pins?limit=3');
      assert.equal(first.body.pins.length, 3);
      assert.equal(typeof first.body.nextCursor, 'string');
      const second = await h.request('GET', `/api/v1/pins?limit=3&cursor=${first.body.nextCursor}`);
      assert.deepEqual(second.body.pins.map((p: { pinId: string }) => p.pinId), [pinIds[0]]);
      assert.equal(second.body.nextCursor, null);
      assertFieldError(await h.request('GET', '/api/v1/pins?cursor=bm9wZQ'), 'cursor');
    });

    it('an expired PIN is listed as expired', async () => {
      h.clock.advance(16 * 60_000);
      const expired = await h.request('GET', '/api/v1/pins?status=expired');
      assert.deepEqual(expired.body.pins.map((p: { pinId: string }) => p.pinId), [pinIds[3], pinIds[2], pinIds[0]]);
      h.clock.advance(-16 * 60_000);
    });

    it('shows another account nothing, and refuses the send-only key', async () => {
      const ofB = await h.request('GET', `/api/v1/pins?applicationId=${app.applicationId}`, { key: h.keys.b });
      assert.equal(ofB.status, 200);
      assert.deepEqual(ofB.body.pins, []);
      assert.deepEqual((await h.request('GET', '/api/v1/pins', { key: h.keys.b })).body.pins, []);
      const stats = await h.request('GET', '/api/v1/stats', { key: h.keys.b });
      assert.deepEqual(stats.body.totals, { sends: 0, deliveries: 0, verifications: 0 });
      assert.deepEqual(stats.body.conversion.byChannel, []);
      assertEnvelope(await h.request('GET', '/api/v1/pins', { key: h.keys.sendOnly }), 403, 'FORBIDDEN');
      assertEnvelope(await h.request('GET', '/api/v1/stats', { key: h.keys.sendOnly }), 403, 'FORBIDDEN');
    });

    it('counts sends, deliveries and verifications per channel over time, conversion, latency', async () => {
      await h.node.worker.drain();
      const stats = await h.request('GET', `/api/v1/stats?from=${start - 3_600_000}&to=${h.clock.now + 3_600_000}&bucket=hour`);
      assert.equal(stats.status, 200, JSON.stringify(stats.body));
      assert.equal(stats.body.bucket, 'hour');
      assert.equal(stats.body.bucketMs, 3_600_000);
      assert.deepEqual(stats.body.totals, { sends: 4, deliveries: 4, verifications: 1 });
      for (const point of stats.body.series) assert.equal(point.start % 3_600_000, 0);
      const sms = stats.body.conversion.byChannel.find((c: { channel: string }) => c.channel === 'sms');
      assert.deepEqual(sms, { channel: 'sms', sent: 3, verified: 1, rate: 0.3333 });
      assert.deepEqual(stats.body.conversion.byCountry, [{ country: 'CH', sent: 3, verified: 1, rate: 0.3333 }]);
      const latency = stats.body.latency.find((l: { channel: string }) => l.channel === 'sms');
      assert.equal(latency.count, 3);
      assert.ok(latency.p50 >= 0 && latency.p50 <= latency.p90 && latency.p90 <= latency.p99 && latency.p99 <= latency.max);
      assert.deepEqual(stats.body.blocked, [], 'nothing was refused');

      // The default range is the last seven days, by the day.
      const defaults = await h.request('GET', '/api/v1/stats');
      assert.equal(defaults.body.bucket, 'day');
      assert.equal(defaults.body.to - defaults.body.from, 7 * 86_400_000);
      assert.equal(defaults.body.totals.sends, 4);
      // Outside the range, nothing.
      const before = await h.request('GET', `/api/v1/stats?from=${start - 7_200_000}&to=${start - 3_600_000}`);
      assert.deepEqual(before.body.series, []);
    });

    it('counts refused requests by what and why, from the audit log', async () => {
      const strict = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '1/1d' } });
      const to = freshPhone();
      assert.equal((await h.request('POST', '/2fa/2/pin', { body: { ...strict, to } })).status, 200);
      assert.equal((await h.request('POST', '/2fa/2/pin', { body: { ...strict, to } })).status, 429);
      assert.equal((await h.request('POST', '/2fa/2/pin', { body: { ...strict, to } })).status, 429);
      const stats = await h.request('GET', '/api/v1/stats');
      assert.deepEqual(stats.body.blocked, [{ event: 'pin.send.refused', reason: 'send:to', count: 2 }]);
      assert.deepEqual((await h.request('GET', '/api/v1/stats', { key: h.keys.b })).body.blocked, [], 'another account\'s refusals are not counted');
    });

    it('shows what waits for delivery now and how long the oldest has waited, for the account alone', async () => {
      await h.node.worker.drain();
      const appOfB = await createAppAndTemplate(h, { key: h.keys.b });
      assert.equal((await h.request('POST', '/2fa/2/pin', { key: h.keys.b, body: { ...appOfB, to: freshPhone() } })).status, 200);
      h.clock.advance(5000);
      assert.equal((await h.request('POST', '/2fa/2/pin', { key: h.keys.b, body: { ...appOfB, to: freshPhone() } })).status, 200);
      assert.deepEqual((await h.request('GET', '/api/v1/stats', { key: h.keys.b })).body.queue, { pending: 2, oldestAgeMs: 5000 });
      assert.deepEqual((await h.request('GET', '/api/v1/stats')).body.queue, { pending: 0, oldestAgeMs: 0 }, 'another account\'s messages are not counted');
      await h.node.worker.drain();
      assert.deepEqual((await h.request('GET', '/api/v1/stats', { key: h.keys.b })).body.queue, { pending: 0, oldestAgeMs: 0 });
      h.clock.advance(-5000);
    });

    it('checks the range', async () => {
      assertFieldError(await h.request('GET', '/api/v1/stats?from=10&to=10'), 'from');
      assertFieldError(await h.request('GET', `/api/v1/stats?from=0&to=${400 * 86_400_000}&bucket=hour`), 'bucket');
      assertFieldError(await h.request('GET', '/api/v1/stats?bucket=week'), 'bucket');
      assertFieldError(await h.request('GET', '/api/v1/stats?from=yesterday'), 'from');
    });
  });

  describe('/console', () => {
    // Straight through inject(): the console's pages and files are not operations of the API document.
    const get = (url: string) => h.node.app.inject({ method: 'GET', url });
    const built = CONSOLE_DIRS.some((dir) => fs.existsSync(path.join(dir, 'index.html')));

    it('serves the app with a strict Content-Security-Policy, and index.html for the app\'s own routes', { skip: !built && 'the console is not built (npm run build)' }, async () => {
      for (const url of ['/console', '/console/', '/console/pins', '/console/applications/ABC/templates/new']) {
        const page = await get(url);
        assert.equal(page.statusCode, 200, url);
        assert.match(String(page.headers['content-type']), /^text\/html/);
        assert.equal(page.headers['cache-control'], 'no-cache');
        assert.match(String(page.headers['content-security-policy']), /script-src 'self';/);
        assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
        assert.equal(page.headers['x-content-type-options'], 'nosniff');
        assert.match(page.body, /<div id="app">/);
      }
      const script = /src="\/console\/(assets\/[^"]+\.js)"/.exec((await get('/console/')).body)?.[1];
      assert.ok(script, 'the page loads a hashed script');
      const asset = await get(`/console/${script}`);
      assert.equal(asset.statusCode, 200);
      assert.match(String(asset.headers['content-type']), /^text\/javascript/);
      assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    });

    it('answers 404 for a missing file and never leaves the app\'s folder', async () => {
      for (const url of ['/console/assets/nope-123.js', '/console/..%2Fpackage.json', '/console/%2e%2e/%2e%2e/package.json', '/console/robots.txt']) {
        const response = await get(url);
        assert.ok(response.statusCode === 404 || (response.statusCode === 200 && /<div id="app">/.test(response.body)) || response.statusCode === 503, `${url}: ${response.statusCode}`);
        assert.doesNotMatch(response.body, /"name": "twofa"/);
      }
      const missing = await get('/console/assets/nope-123.js');
      assert.equal(missing.statusCode, 404);
      assert.equal(JSON.parse(missing.body).requestError.serviceException.messageId, 'NOT_FOUND');
    });
  });
});
