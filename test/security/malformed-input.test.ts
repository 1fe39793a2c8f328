// T18 malformed-pin and T19 malformed-destination. Malformed PINs never verify and never cause a 5xx;
// a string of the wrong length or alphabet is a counted WRONG_PIN (Keycloak's "a missing OTP counts"
// semantics for anything that reaches the comparison), while a body that is not `{"pin": string}` is a
// 400 before any attempt is spent. Malformed and refused destinations are 400/403 with nothing queued
// and nothing delivered.
// Standards: ASVS 4.0.3 13.2.2, 2.2.1; ASVS 5.0 16.5.1, 2.4.1 (CVE-2025-12374 shape).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';
import { inboxPin, injector } from './support/in-process.js';
import { createResults, percentile } from './support/results.js';

const results = createResults('malformed-input', {
  tests: ['T18', 'T19'],
  standards: ['ASVS 4.0.3 13.2.2', 'ASVS 5.0 16.5.1', 'ASVS 5.0 2.4.1', 'ASVS 4.0.3 2.2.1'],
});

describe('malformed PINs and destinations', () => {
  let h: Harness;
  let inject: ReturnType<typeof injector>;
  let app: { applicationId: string; messageId: string };

  before(async () => {
    h = await createHarness();
    inject = injector(h, results);
    app = await createAppAndTemplate(h, { configuration: { pinAttempts: 100, verifyPinLimit: '100000/1s', sendPinPerPhoneNumberLimit: '100000/1d' } });
  });
  after(async () => {
    results.save();
    await h?.close();
  });

  it('T18: no malformed PIN verifies, none is a 5xx, and the right PIN still works', async () => {
    const sent = await inject('POST', '/2fa/2/pin', { body: { ...app, to: '41796050001' } });
    const pinId = sent.body.pinId as string;
    const pin = await inboxPin(h, pinId);
    const wrongDigit = (i: number) => `${pin.slice(0, i)}${(Number(pin[i]) + 1) % 10}${pin.slice(i + 1)}`;
    const candidates: { label: string; raw: string }[] = [
      ...['', ' ', '12345', '1234567', '\uFF11\uFF12\uFF13\uFF14\uFF15\uFF16', '12345\u0000', `${pin} `, ` ${pin}`, '%', '_____', '*', '.*', "' OR 1=1 --",
        `${pin}\u0000`, pin.split('').reverse().join('') === pin ? '000000' : pin.split('').reverse().join(''), '000000', '999999', wrongDigit(0), wrongDigit(5),
        `${pin}${pin}`, pin.toLowerCase() === pin ? `${pin}a` : pin.toLowerCase(), '\u202E123456', '１２３４５６', '123456'.normalize('NFKD'), '\uD800', '${pin}', '{{pin}}']
        .filter((p) => p !== pin).map((p) => ({ label: `pin ${JSON.stringify(p)}`, raw: JSON.stringify({ pin: p }) })),
      { label: 'pin null', raw: '{"pin":null}' },
      { label: 'pin []', raw: '{"pin":[]}' },
      { label: 'pin {}', raw: '{"pin":{}}' },
      { label: 'pin number', raw: `{"pin":${Number(pin)}}` },
      { label: 'pin true', raw: '{"pin":true}' },
      { label: 'no pin', raw: '{}' },
      { label: 'pin twice', raw: `{"pin":"000000","pin":"${pin}"}`.replace(`"${pin}"`, '"111111"') },
      { label: 'array body', raw: `["${pin}"]` },
      { label: 'string body', raw: `"${pin}"` },
      { label: 'extra fields', raw: '{"pin":"000001","verified":true,"attemptsRemaining":100}' },
      { label: 'prototype pollution', raw: '{"pin":"000002","__proto__":{"verified":true},"constructor":{"prototype":{"verified":true}}}' },
      { label: 'not JSON', raw: '{pin: 123456' },
      { label: '1 MB pin', raw: JSON.stringify({ pin: '1'.repeat(1024 * 1024) }) },
    ];
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    let verified = 0;
    for (const c of candidates) {
      const r = await inject('POST', `/2fa/2/pin/${pinId}/verify`, { rawBody: c.raw, headers: { 'content-type': 'application/json' } });
      results.add('badInputs');
      latencies.push(r.ms);
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      assert.ok(r.status < 500, `${c.label}: ${r.status}`);
      if (r.body?.verified === true) verified += 1;
      assert.notEqual(r.body?.verified, true, `${c.label} verified!`);
      if (r.status === 200) assert.equal(r.body.pinError, 'WRONG_PIN', `${c.label}: ${r.text}`);
    }
    assert.equal(statuses['413'], 1, 'the 1 MB body is 413');
    const details = await inject('GET', `/api/v1/pins/${pinId}`);
    const counted = 100 - details.body.attemptsRemaining;
    assert.equal(counted, statuses['200'], 'every 200 was a counted WRONG_PIN; 400/413 spent no attempt');
    const right = await inject('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin } });
    assert.equal(right.body.verified, true);
    const p99 = percentile(latencies, 99);
    results.set('T18.p99Ms', Number(p99.toFixed(2)));
    results.set('T18.statuses', JSON.stringify(statuses));
    results.set('T18.countedAsAttempts', counted);
    const fiveXX = Object.entries(statuses).filter(([status]) => Number(status) >= 500).reduce((n, [, count]) => n + count, 0);
    results.check('T18', verified === 0 && fiveXX === 0 && counted === statuses['200'] && right.body.verified === true, `${candidates.length} malformed PINs: ${verified} verified, ${fiveXX} × 5xx, statuses ${JSON.stringify(statuses)}; strings are counted WRONG_PIN, non-strings 400 uncounted; p99 ${p99.toFixed(1)} ms`);
  });

  it('T19: malformed, premium-rate, shared-cost, blocked-country and injected destinations are refused with nothing queued', async () => {
    const guarded = await createAppAndTemplate(h, { configuration: { sendPinPerPhoneNumberLimit: '1000/1d' } });
    const on = await inject('PUT', `/api/v1/applications/${guarded.applicationId}/security`, { body: { enabled: true, blockedCountries: ['FR'], refusePremiumNumbers: true } });
    assert.equal(on.status, 200, on.text);
    const email = await inject('POST', '/api/v1/email-templates', { body: { name: 'e', subject: 'code', text: 'code is {{pin}}' } });
    const emailMessage = await inject('POST', `/2fa/2/applications/${guarded.applicationId}/email/messages`, { body: { emailTemplateId: email.body.id } });
    const phones: [string, number][] = [
      ['', 400], ['+', 400], ['abc', 400], ['41 79 302 67 27', 400], ['0041793026727', 400], ['123', 400], ['1'.repeat(20), 400], ['4179302672７', 400],
      ['41793026727\n', 400], ['+-41793026727', 400], ['999999999999', 400], ['41793026727;rm -rf', 400], ['4179302672a', 400], ['１２３４５６７８９０', 400],
      ['449098765432', 403], ['41900123456', 403], ['41840123456', 403], ['33810123456', 403], ['33612345678', 403],
    ];
    const emails: [string, number][] = [
      ['a@b', 400], ['ann@example.com\r\nBcc: victim@example.com', 400], ['ann@example.com\nSubject: x', 400], ['<ann@example.com>', 400],
      ['ann@example.com, bob@example.com', 400], ['ann@@example.com', 400], [`${'a'.repeat(310)}@example.com`, 400], ['"ann"@example.com', 400],
      ['ann@exa mple.com', 400], ['ann@ex\u0000ample.com', 400], ['ann@xn--', 400], ['ann@bücher.example', 400],
    ];
    const pendingBefore = await h.node.store.countPendingOutbox();
    const refusedAsExpected: boolean[] = [];
    const inboxBefore = h.node.inbox.list((await h.node.store.listApiKeys())[0]!.accountId, { limit: 100_000 }).length;
    for (const [to, expected] of phones) {
      const r = await inject('POST', '/2fa/2/pin', { body: { ...guarded, to } });
      results.add('badInputs');
      refusedAsExpected.push(r.status === expected);
      assert.equal(r.status, expected, `${JSON.stringify(to)}: ${r.text}`);
    }
    for (const [to, expected] of emails) {
      const r = await inject('POST', '/2fa/2/pin/email', { body: { applicationId: guarded.applicationId, messageId: emailMessage.body.messageId, to } });
      results.add('badInputs');
      refusedAsExpected.push(r.status === expected);
      assert.equal(r.status, expected, `${JSON.stringify(to)}: ${r.text}`);
    }
    const queued = await h.node.store.countPendingOutbox() - pendingBefore;
    assert.equal(queued, 0, 'nothing queued');
    await h.node.worker.drain();
    const delivered = h.node.inbox.list((await h.node.store.listApiKeys())[0]!.accountId, { limit: 100_000 }).length - inboxBefore;
    assert.equal(delivered, 0, 'nothing delivered');
    results.check('T19', refusedAsExpected.every(Boolean) && queued === 0 && delivered === 0, `${phones.length + emails.length} malformed or refused destinations → 400/403 (premium-rate, shared-cost, blocked country: 403), ${queued} queued, ${delivered} delivered`);
  });
});
