// /api/v1/applications/{appId}/security and /api/v1/audit through inject(), on SQLite and (npm test
// runs test/http twice) on PostgreSQL: settings merge and validation, each guard's refusal, the
// breaker's block and its expiry, the brute-force budget, audit paging and filters, and isolation
// between accounts. The attack suite (test/security) drives the same guards under load.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';

describe('anti-fraud guards and the audit log', () => {
  let h: Harness;
  let app: { applicationId: string; messageId: string };
  before(async () => {
    h = await createHarness();
    app = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '100/1d' } });
  });
  after(async () => {
    await h?.close();
  });

  const security = (body?: unknown, key?: string) => h.request(body === undefined ? 'GET' : 'PUT', `/api/v1/applications/${app.applicationId}/security`, { ...(body !== undefined ? { body } : {}), ...(key ? { key } : {}) });
  const send = (to: string) => h.request('POST', '/2fa/2/pin', { body: { ...app, to } });

  it('starts off, with the defaults and a brute-force budget; PUT merges, validates and is per account', async () => {
    const initial = await security();
    assert.equal(initial.status, 200);
    assert.equal(initial.body.settings.enabled, false);
    assert.equal(initial.body.updatedAt, null);
    assert.equal(initial.body.bruteForce.pinSpace, 1_000_000);
    assert.equal(initial.body.bruteForce.attemptsPerPin, 10);
    const bad = await security({ allowedCountries: ['Swiss'], perIpSendLimit: 'ten', conversionBreaker: { minConversionRate: 5 } });
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.body.requestError.serviceException.validationErrors).sort(), ['allowedCountries', 'conversionBreaker.minConversionRate', 'perIpSendLimit']);
    const unknownField = await security({ enable: true });
    assert.equal(unknownField.status, 400);
    const on = await security({ enabled: true, blockedCountries: ['fr'], perIpSendLimit: '50/1h' });
    assert.equal(on.status, 200);
    assert.deepEqual([on.body.settings.enabled, on.body.settings.blockedCountries, on.body.settings.perIpSendLimit, on.body.settings.refusePremiumNumbers], [true, ['FR'], '50/1h', true]);
    const merged = await security({ perIpSendLimit: '' });
    assert.deepEqual([merged.body.settings.perIpSendLimit, merged.body.settings.blockedCountries], [null, ['FR']], 'fields left out keep their values; "" removes a limit');
    assert.equal((await security(undefined, h.keys.b)).status, 404, 'another account sees no such application');
    assert.equal((await h.request('GET', '/api/v1/applications/NOPE/security')).status, 404);
  });

  it('refuses blocked countries, prefixes and premium numbers with 403 and counts them', async () => {
    await security({ enabled: true, blockedCountries: ['FR'], blockedPrefixes: ['4179999'], refusePremiumNumbers: true });
    const fr = await send('33612345678');
    assert.equal(fr.status, 403);
    assert.match(fr.body.requestError.serviceException.text, /country FR is blocked/);
    assert.equal((await send('41799991234')).status, 403);
    const premium = await send('41900123456');
    assert.equal(premium.status, 403);
    assert.match(premium.body.requestError.serviceException.text, /premium-rate/);
    assert.equal((await send('41793026700')).status, 200);
    await security({ allowedCountries: ['DE'] });
    assert.equal((await send('41793026701')).status, 403, 'not among the allowed countries');
    await security({ allowedCountries: [], blockedCountries: [], blockedPrefixes: [] });
    const metrics = await h.request('GET', '/metrics', { key: null });
    assert.match(metrics.body, /twofa_security_refusals_total\{guard="country"[^}]*\} 2/);
    assert.match(metrics.body, /twofa_security_refusals_total\{guard="premium_number"[^}]*\} 1/);
  });

  it('trips the conversion breaker, lists the block, and lifts it after blockFor', async () => {
    await security({ enabled: true, conversionBreaker: { enabled: true, window: '1h', minSends: 3, minConversionRate: 0.5, blockFor: '10m' } });
    for (let i = 0; i < 3; i += 1) assert.equal((await send(`4474001${String(10000 + i)}`)).status, 200);
    const tripped = await send('447400130000');
    assert.equal(tripped.status, 429);
    assert.match(String(tripped.headers['retry-after']), /^[1-9][0-9]*$/);
    const view = await security();
    assert.equal(view.body.activeBlocks.length, 1);
    assert.equal(view.body.activeBlocks[0].scope, 'country:GB');
    // Verified sends keep a country open.
    for (let i = 0; i < 3; i += 1) {
      const sent = await send(`4179302${String(6000 + i)}`);
      const pin = await deliveredPin(h, sent.body.pinId);
      assert.equal((await h.request('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, { body: { pin } })).body.verified, true);
    }
    assert.equal((await send('41793026999')).status, 200);
    h.clock.advance(10 * 60_000 + 1);
    assert.equal((await security()).body.activeBlocks.length, 0);
    h.clock.advance(60 * 60_000);
    assert.equal((await send('447400130001')).status, 200, 'the block expired and the window moved on');
    await security({ enabled: false });
  });

  it('audits sends, refusals, verifications and configuration changes, paged, filtered and per account', async () => {
    const page = await h.request('GET', '/api/v1/audit?limit=5');
    assert.equal(page.status, 200);
    assert.equal(page.body.entries.length, 5);
    assert.deepEqual(page.body.entries.map((e: { seq: number }) => e.seq), [1, 2, 3, 4, 5]);
    assert.equal(page.body.entries[1].prevHash, page.body.entries[0].hash);
    const next = await h.request('GET', `/api/v1/audit?limit=1000&after=${page.body.next}`);
    assert.equal(next.body.entries[0].seq, 6);
    assert.equal(next.body.next, null);
    const all = [...page.body.entries, ...next.body.entries] as { event: string; destination: string | null; reason: string | null; sourceIp: string | null; actor: string | null }[];
    const events = new Set(all.map((e) => e.event));
    for (const e of ['config.application.create', 'config.security.update', 'pin.send', 'pin.send.refused', 'pin.verify', 'delivery.sent', 'security.breaker.tripped']) assert.ok(events.has(e), `${e} audited`);
    for (const e of all) if (e.destination !== null) assert.match(e.destination, /\*/, 'destinations are masked');
    assert.ok(all.every((e) => e.event.startsWith('delivery.') || e.sourceIp === '127.0.0.1'));
    const verifies = await h.request('GET', '/api/v1/audit?event=pin.verify');
    assert.ok(verifies.body.entries.every((e: { event: string }) => e.event === 'pin.verify'));
    const bad = await h.request('GET', '/api/v1/audit?limit=abc');
    assert.equal(bad.status, 400);
    const other = await h.request('GET', '/api/v1/audit', { key: h.keys.b });
    assert.deepEqual(other.body.entries, [], 'another account has its own (empty) chain');
    assert.equal((await h.request('GET', '/api/v1/audit', { key: h.keys.sendOnly })).status, 403);
    const { verifyAuditChains } = await import('../../src/service/audit-log.js');
    const { PinKeyring } = await import('../../src/domain/pin-secrets.js');
    const report = await verifyAuditChains(h.node.store, new PinKeyring('test-secret-0123456789-0123456789-abcdef'));
    assert.deepEqual(report.problems, []);
    assert.ok(report.entries >= all.length);
  });
});
