// T23 pumping-simulation, T24 conversion-breaker, T25 ipv6-and-encoding: the anti-fraud guards of
// /api/v1/applications/{appId}/security under a bot that sprays sends over a number range from
// rotating addresses with a spoofed X-Forwarded-For, a country with no verifications next to a healthy
// one, and one /64 seen through many addresses and spellings.
// Standards: ASVS 5.0 2.4.1, 6.1.1, 6.3.1; ASVS 4.0.3 11.1.4, 11.1.8; OWASP API4:2023; OWASP MFA Cheat
// Sheet (SMS pumping).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';
import { inboxPin, injector } from './support/in-process.js';
import { createResults, scale } from './support/results.js';

const results = createResults('pumping', {
  tests: ['T23', 'T24', 'T25'],
  standards: ['ASVS 5.0 2.4.1', 'ASVS 5.0 6.1.1', 'ASVS 4.0.3 11.1.4', 'ASVS 4.0.3 11.1.8', 'OWASP API4:2023'],
});

/** What one SMS costs the operator in the simulation (a typical international A2P price). */
const COST_PER_SMS = 0.05;

describe('SMS pumping and the anti-fraud guards', () => {
  let h: Harness;
  let proxied: Harness;
  let inject: ReturnType<typeof injector>;

  before(async () => {
    h = await createHarness();
    proxied = await createHarness({ TWOFA_TRUSTED_PROXIES: '10.0.0.1,fd00::/8' });
    inject = injector(h, results);
  });
  after(async () => {
    results.save();
    await h?.close();
    await proxied?.close();
  });

  async function guardedApp(harness: Harness, security: Record<string, unknown>) {
    const app = await createAppAndTemplate(harness, { configuration: { sendPinPerPhoneNumberLimit: '5/1d', sendPinPerApplicationLimit: '1000000/1d', verifyPinLimit: '1000/1s' } });
    const on = await injector(harness)('PUT', `/api/v1/applications/${app.applicationId}/security`, { body: { enabled: true, ...security } });
    assert.equal(on.status, 200, on.text);
    return app;
  }

  it('T23: a bot spraying a number range from 500 rotating addresses with spoofed X-Forwarded-For gets a bounded number of SMS', async () => {
    const app = await guardedApp(h, { perPrefixSendLimit: '20/1h', perIpSendLimit: '10/1h' });
    const attempts = scale(400, 10_000);
    let delivered = 0;
    const refusals: Record<string, number> = {};
    const started = Date.now();
    let firstBlockAt: number | undefined;
    for (let i = 0; i < attempts; i += 1) {
      const to = `44740012${String(i % 10_000).padStart(4, '0')}`;
      const r = await inject('POST', '/2fa/2/pin', {
        body: { ...app, to }, remoteAddress: `198.51.${Math.floor((i % 500) / 250)}.${(i % 250) + 1}`,
        headers: { 'x-forwarded-for': `203.0.113.${i % 200}` },
      });
      results.add('pumpingAttempts');
      if (r.status === 200) delivered += 1;
      else {
        firstBlockAt ??= i;
        const key = `${r.status} ${r.body.requestError.serviceException.text.split(' reached')[0]}`;
        refusals[key] = (refusals[key] ?? 0) + 1;
      }
    }
    results.add('pumpingDelivered', delivered);
    results.set('T23.simulatedCostUsd', (delivered * COST_PER_SMS).toFixed(2));
    results.set('T23.costWithoutGuardsUsd', (attempts * COST_PER_SMS).toFixed(2));
    results.set('T23.blockedAfterSends', firstBlockAt ?? null);
    results.set('T23.refusals', JSON.stringify(refusals));
    results.set('T23.durationMs', Date.now() - started);
    assert.equal(delivered, 20, 'the number range gets perPrefixSendLimit (20) sends, however many addresses');
    // The spoofed header was ignored: without a trusted proxy the per-IP keys are the socket addresses.
    const metrics = await inject('GET', '/metrics', { key: null });
    assert.match(metrics.text, /twofa_security_refusals_total\{guard="prefix_limit"[^}]*\} \d+/);
    results.check('T23', delivered === 20, `${attempts} sends over one range from 500 addresses + spoofed XFF: ${delivered} delivered (budget 20/h), simulated cost $${(delivered * COST_PER_SMS).toFixed(2)} instead of $${(attempts * COST_PER_SMS).toFixed(2)}; blocked after send ${firstBlockAt}`);
  });

  it('T23: X-Forwarded-For is believed only from a configured proxy', async () => {
    const app = await guardedApp(proxied, { perIpSendLimit: '3/1h' });
    const send = (i: number, remoteAddress: string, xff: string) => injector(proxied, results)('POST', '/2fa/2/pin', {
      body: { ...app, to: `4179607${String(1000 + i).padStart(4, '0')}` }, remoteAddress, headers: { 'x-forwarded-for': xff },
    });
    // Through the trusted proxy, each client address has its own budget.
    const viaProxy = await Promise.all(Array.from({ length: 6 }, (_, i) => send(i, '10.0.0.1', `192.0.2.${i % 2}`)));
    assert.equal(viaProxy.filter((r) => r.status === 200).length, 6);
    // From an untrusted peer the header is ignored: one address, one budget, however the header rotates.
    const spoofed = [];
    for (let i = 0; i < 6; i += 1) spoofed.push(await send(10 + i, '192.0.2.77', `192.0.2.${100 + i}`));
    assert.equal(spoofed.filter((r) => r.status === 200).length, 3);
    const audit = await injector(proxied)('GET', `/api/v1/audit?applicationId=${app.applicationId}&event=pin.send&limit=100`);
    assert.ok(audit.body.entries.some((e: { sourceIp: string }) => e.sourceIp === '192.0.2.1'), 'the audit log records the client behind the trusted proxy');
    assert.ok(!audit.body.entries.some((e: { sourceIp: string }) => e.sourceIp === '192.0.2.100'), 'and never a spoofed address');
  });

  it('T24: a country with sends but no verifications is blocked; a converting country is not; the block expires', async () => {
    const app = await guardedApp(h, { conversionBreaker: { enabled: true, window: '1h', minSends: 20, minConversionRate: 0.2, blockFor: '30m' } });
    const attempts = scale(100, 500);
    let gbDelivered = 0;
    let gbBlockedAt: number | undefined;
    let chRefused = 0;
    let chSent = 0;
    for (let i = 0; i < attempts; i += 1) {
      const gb = await inject('POST', '/2fa/2/pin', { body: { ...app, to: `447400${String(200_000 + i).padStart(6, '0')}` }, remoteAddress: `198.51.100.${i % 250}` });
      if (gb.status === 200) gbDelivered += 1;
      else {
        assert.equal(gb.status, 429);
        assert.match(gb.body.requestError.serviceException.text, /conversion breaker/);
        gbBlockedAt ??= i;
      }
      if (i % 3 === 0) {
        // Switzerland converts: 80 % of its PINs are verified.
        const ch = await inject('POST', '/2fa/2/pin', { body: { ...app, to: `41796${String(100_000 + i).padStart(6, '0')}` } });
        if (ch.status !== 200) { chRefused += 1; continue; }
        chSent += 1;
        if (chSent % 5 !== 0) {
          const pin = await inboxPin(h, ch.body.pinId);
          assert.equal((await inject('POST', `/2fa/2/pin/${ch.body.pinId}/verify`, { body: { pin } })).body.verified, true);
        }
      }
    }
    results.add('pumpingAttempts', attempts);
    results.add('pumpingDelivered', gbDelivered);
    results.add('falseBlocks', chRefused);
    results.set('T24.blockedAfterSends', gbBlockedAt ?? null);
    assert.equal(gbDelivered, 20, 'blocked once minSends is reached with 0 % conversion');
    assert.equal(chRefused, 0, 'the converting country is never blocked');
    const security = await inject('GET', `/api/v1/applications/${app.applicationId}/security`);
    const blocked = security.body.activeBlocks[0]?.scope;
    assert.equal(blocked, 'country:GB');
    const audit = await inject('GET', `/api/v1/audit?applicationId=${app.applicationId}&event=security.breaker.tripped`);
    const trips = audit.body.entries.length;
    assert.equal(trips, 1, 'the trip is audited once');
    h.clock.advance(30 * 60_000 + 1);
    h.clock.advance(60 * 60_000);
    const afterBlock = await inject('POST', '/2fa/2/pin', { body: { ...app, to: '447400399999' } });
    assert.equal(afterBlock.status, 200, 'the block expires');
    results.check('T24', gbDelivered === 20 && chRefused === 0 && blocked === 'country:GB' && trips === 1 && afterBlock.status === 200,
      `GB (0 % verified) blocked after ${gbBlockedAt} sends of ${attempts}; CH (80 %) ${chSent} sends, ${chRefused} false blocks; block audited ${trips} time(s) and expired after blockFor`);
  });

  it('T25: 1 000 addresses of one /64 and four spellings of one IPv6 address count as one client', async () => {
    const app = await guardedApp(h, { perIpSendLimit: '5/1h' });
    const n = scale(200, 1000);
    let accepted = 0;
    for (let i = 0; i < n; i += 1) {
      const r = await inject('POST', '/2fa/2/pin', { body: { ...app, to: `41797${String(100_000 + i).padStart(6, '0')}` }, remoteAddress: `2001:db8:abcd:12:${((i * 7919) % 65536).toString(16)}:${i.toString(16)}:1:${(i % 65536).toString(16)}` });
      results.add('ipv6AddressesTried');
      if (r.status === 200) accepted += 1;
    }
    assert.equal(accepted, 5, `one /64, one budget (${accepted} accepted)`);
    const app2 = await guardedApp(h, { perIpSendLimit: '2/1h' });
    const spellings = ['2001:DB8:0:7::1', '2001:db8:0:7:0:0:0:1', '2001:0db8:0000:0007:0000:0000:0000:0001', '2001:db8::7:0:0:0:1', '2001:db8:0:7:ffff::2'];
    let spelled = 0;
    for (const [i, address] of spellings.entries()) {
      const r = await inject('POST', '/2fa/2/pin', { body: { ...app2, to: `41798${String(100_000 + i).padStart(6, '0')}` }, remoteAddress: address });
      if (r.status === 200) spelled += 1;
    }
    assert.equal(spelled, 2, 'every spelling is one key');
    const app3 = await guardedApp(h, { perIpSendLimit: '1/1h' });
    const v4 = await inject('POST', '/2fa/2/pin', { body: { ...app3, to: '41799100001' }, remoteAddress: '192.0.2.10' });
    const mapped = await inject('POST', '/2fa/2/pin', { body: { ...app3, to: '41799100002' }, remoteAddress: '::ffff:192.0.2.10' });
    const mappedHex = await inject('POST', '/2fa/2/pin', { body: { ...app3, to: '41799100003' }, remoteAddress: '::ffff:c000:20a' });
    assert.deepEqual([v4.status, mapped.status, mappedHex.status], [200, 429, 429], 'IPv4-mapped IPv6 (dotted or hex) is the IPv4 address');
    const mappedIsTheIpv4 = v4.status === 200 && mapped.status === 429 && mappedHex.status === 429;
    results.check('T25', accepted === 5 && spelled === 2 && mappedIsTheIpv4, `${n} addresses in one /64 → ${accepted} sends (limit 5); 5 spellings of one address → 2 (limit 2); IPv4-mapped dotted and hex = the IPv4`);
  });
});
