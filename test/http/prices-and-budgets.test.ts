// Prices and budgets (docs/routing.md): every message a transport takes gets the price list's price x
// its SMS parts, shown on the PIN and summed in the spend statistics; budgets refuse the send whose
// price would pass a cap, in the PIN's own write, in every dialect.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/store/schema.js';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';

const PRICES = [
  'transport,country,prefix,price,currency',
  '# Switzerland: one price for the country',
  'log,CH,,0.0500,EUR',
  '# United Kingdom: mobiles (447) cheaper than the rest',
  'log,GB,,0.0400,EUR',
  'log,GB,447,0.0300,EUR',
].join('\n');

async function withPrices(text = PRICES, env: Record<string, string> = {}): Promise<Harness> {
  const dir = fs.mkdtempSync(path.join(process.env['TMPDIR'] ?? '/tmp', 'twofa-prices-'));
  const file = path.join(dir, 'prices.csv');
  fs.writeFileSync(file, text);
  return createHarness({ TWOFA_PRICES_FILE: file, ...env });
}

const dbOf = (h: Harness) => (h.node.store as unknown as { db: Kysely<Database> }).db;

/** Placeholder text that makes "Your code is {{pin}}. {{note}}" two GSM-7 parts. */
const LONG_NOTE = 'x'.repeat(160);

describe('prices: every message gets its price when its transport takes it', () => {
  let h: Harness;
  before(async () => { h = await withPrices(); });
  after(async () => { await h.close(); });

  it('prices an SMS per part by the longest prefix, then the country, and shows it on the PIN', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(h, { template: { messageText: 'Your code is {{pin}}. {{note}}' } });
    const swiss = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026727', placeholders: { note: LONG_NOTE } } });
    const britishMobile = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '447700900123', placeholders: { note: 'hi' } } });
    const britishFixed = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '442079460123', placeholders: { note: 'hi' } } });
    const unpriced = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '14155550100', placeholders: { note: 'hi' } } });
    for (const sent of [swiss, britishMobile, britishFixed, unpriced]) assert.equal(sent.status, 200, JSON.stringify(sent.body));
    // Before delivery, nothing is priced: the price is the transport's, recorded when it takes the message.
    assert.deepEqual((await h.request('GET', `/api/v1/pins/${swiss.body.pinId}`)).body.messages, []);
    await h.node.worker.drain();

    const detail = await h.request('GET', `/api/v1/pins/${swiss.body.pinId}`);
    assert.equal(detail.body.messages.length, 1);
    const [message] = detail.body.messages;
    assert.deepEqual({ transport: message.transport, country: message.country, segments: message.segments, price: message.price, priceSource: message.priceSource },
      { transport: 'log', country: 'CH', segments: 2, price: { amount: '0.1000', currency: 'EUR' }, priceSource: 'list' });
    assert.deepEqual((await h.request('GET', `/api/v1/pins/${britishMobile.body.pinId}`)).body.messages[0].price, { amount: '0.0300', currency: 'EUR' });
    assert.deepEqual((await h.request('GET', `/api/v1/pins/${britishFixed.body.pinId}`)).body.messages[0].price, { amount: '0.0400', currency: 'EUR' });
    const none = (await h.request('GET', `/api/v1/pins/${unpriced.body.pinId}`)).body.messages[0];
    assert.equal(none.price, null);
    assert.equal(none.priceSource, 'none');

    const byCountry = await h.request('GET', '/api/v1/stats/spend?by=country');
    assert.equal(byCountry.status, 200);
    const group = (key: string) => byCountry.body.groups.find((g: { key: string }) => g.key === key);
    assert.equal(group('CH').amount, '0.1000');
    assert.equal(group('CH').segments, 2);
    assert.equal(group('GB').amount, '0.0700');
    assert.equal(group('GB').messages, 2);
    assert.deepEqual({ currency: group('US').currency, unpriced: group('US').unpriced }, { currency: null, unpriced: 1 });
    assert.deepEqual(byCountry.body.totals, [{ currency: 'EUR', amount: '0.1700', messages: 3 }]);
    assert.equal(byCountry.body.unpriced, 1);

    const byTransport = await h.request('GET', '/api/v1/stats/spend?by=transport');
    assert.deepEqual(byTransport.body.groups.filter((g: { currency: string | null }) => g.currency !== null).map((g: { key: string; amount: string }) => [g.key, g.amount]), [['log', '0.1700']]);
    const byApplication = await h.request('GET', `/api/v1/stats/spend?by=application&from=${new Date(Date.now() - 3_600_000).toISOString()}`);
    assert.equal(byApplication.body.groups.find((g: { currency: string | null }) => g.currency === 'EUR').key, applicationId);
    // Another account sees none of it.
    assert.deepEqual((await h.request('GET', '/api/v1/stats/spend', { key: h.keys.b })).body.groups, []);

    const metrics = String((await h.request('GET', '/metrics', { key: null })).body);
    assert.match(metrics, /twofa_spend_total\{currency="EUR",country="CH",transport="log",node="[^"]+"\} 0\.1\b/);
    assert.match(metrics, /twofa_unpriced_messages_total\{country="US",transport="log",node="[^"]+"\} 1\b/);
  });

  it('refuses a spend query it cannot answer', async () => {
    const bad = await h.request('GET', '/api/v1/stats/spend?by=colour');
    assert.equal(bad.status, 400);
  });

  it('reloads the list on request, and refuses an invalid one whole, keeping the list in force', async () => {
    const file = (await h.request('GET', '/api/v1/prices')).body.file as string;
    assert.equal((await h.request('GET', '/api/v1/prices')).body.lines.length, 3);
    fs.writeFileSync(file, `${PRICES}\nlog,FR,,0.0600,EUR\n`);
    const reloaded = await h.request('POST', '/api/v1/prices/reload');
    assert.equal(reloaded.status, 200);
    assert.equal(reloaded.body.lines.length, 4);
    fs.writeFileSync(file, `${PRICES}\nlog,FR,,six cents,EUR\nlog,XXX,,0.01,EUR\n`);
    const refused = await h.request('POST', '/api/v1/prices/reload');
    assert.equal(refused.status, 400);
    assert.match(refused.body.requestError.serviceException.text, /line 7: price "six cents"/);
    assert.match(refused.body.requestError.serviceException.text, /line 8: country "XXX"/);
    assert.equal((await h.request('GET', '/api/v1/prices')).body.lines.length, 4, 'the list in force is kept');
  });
});

describe('budgets: a send whose price would pass a cap is refused before anything is queued', () => {
  let h: Harness;
  before(async () => { h = await withPrices(); });
  after(async () => { await h.close(); });

  it('counts sends and resends against the application\'s daily cap, refuses the crossing one with a clear error, and reports 80 % and 100 %', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(h);
    await h.request('POST', '/api/v1/webhooks', { body: { url: 'https://hooks.example.com/twofa', events: ['budget.threshold'] } });
    const set = await h.request('PUT', `/api/v1/applications/${applicationId}/budget`, { body: { currency: 'EUR', daily: '0.20', monthly: '100' } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual({ daily: set.body.daily, monthly: set.body.monthly, spent: set.body.spent }, { daily: '0.2000', monthly: '100.0000', spent: { daily: '0.0000', monthly: '0.0000' } });

    // 0.05 EUR each (one part to Switzerland): three sends and a resend reach 0.20 exactly.
    const first = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026727' } });
    assert.equal(first.status, 200);
    for (const to of ['41793026728', '41793026729']) assert.equal((await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to } })).status, 200);
    assert.equal((await h.request('POST', `/2fa/2/pin/${first.body.pinId}/resend`, { body: {} })).status, 200);
    const pinsBefore = Number((await dbOf(h).selectFrom('pins').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

    const refused = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026730' } });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.requestError.serviceException.messageId, 'TOO_MANY_REQUESTS');
    assert.match(refused.body.requestError.serviceException.text, /^Budget exceeded: this message would cost 0\.0500 EUR and take the application .*'s daily budget of 0\.2000 EUR past its cap \(0\.2000 EUR spent since/);
    assert.ok(Number(refused.headers['retry-after']) > 0 && Number(refused.headers['retry-after']) <= 86_400);
    const resendRefused = await h.request('POST', `/2fa/2/pin/${first.body.pinId}/resend`, { body: {} });
    assert.equal(resendRefused.status, 429);
    // Nothing written by the refused sends: no PIN, no message, no spend.
    assert.equal(Number((await dbOf(h).selectFrom('pins').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), pinsBefore);
    assert.equal((await h.request('GET', `/api/v1/applications/${applicationId}/budget`)).body.spent.daily, '0.2000');
    assert.equal((await h.request('GET', `/api/v1/pins/${first.body.pinId}`)).body.sendCount, 2);

    const events = await dbOf(h).selectFrom('event_outbox').select(['event_type', 'payload']).where('event_type', '=', 'budget.threshold').execute();
    const levels = events.map((e) => JSON.parse(e.payload).data).map((d: { level: number; period: string; spent: string; scope: string }) => `${d.scope} ${d.period} ${d.level} ${d.spent}`).sort();
    // 80 % of 0.20 is 0.16: the fourth message (0.15 -> 0.20) crossed it and reached the cap, one event each, once.
    assert.deepEqual(levels, ['application daily 100 0.2000', 'application daily 80 0.2000']);
    const metrics = String((await h.request('GET', '/metrics', { key: null })).body);
    assert.match(metrics, /twofa_budget_events_total\{scope="application",period="daily",event="refused",node="[^"]+"\} 2\b/);
    assert.match(metrics, /twofa_budget_events_total\{scope="application",period="daily",event="threshold_80",node="[^"]+"\} 1\b/);
  });

  it('counts the account\'s budget across its applications, per country when asked, and a message with no price against no cap', async () => {
    const h2 = await withPrices();
    try {
      const one = await createAppAndTemplate(h2);
      const two = await createAppAndTemplate(h2);
      const set = await h2.request('PUT', '/api/v1/budget', { body: { currency: 'EUR', countries: { gb: { daily: '0.05' } } } });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.deepEqual(set.body.countries, { GB: { daily: '0.0500', monthly: null } });
      assert.equal((await h2.request('POST', '/2fa/2/pin', { body: { ...one, to: '447700900123' } })).status, 200);
      const crossing = await h2.request('POST', '/2fa/2/pin', { body: { ...two, to: '447700900124' } });
      assert.equal(crossing.status, 429);
      assert.match(crossing.body.requestError.serviceException.text, /the account's daily budget for GB of 0\.0500 EUR/);
      // Switzerland has no cap of its own, and the United States no price.
      assert.equal((await h2.request('POST', '/2fa/2/pin', { body: { ...two, to: '41793026727' } })).status, 200);
      assert.equal((await h2.request('POST', '/2fa/2/pin', { body: { ...two, to: '14155550100' } })).status, 200);
      assert.equal((await h2.request('DELETE', '/api/v1/budget')).status, 204);
      assert.equal((await h2.request('POST', '/2fa/2/pin', { body: { ...two, to: '447700900124' } })).status, 200);
      assert.equal((await h2.request('GET', '/api/v1/budget')).status, 404);
    } finally {
      await h2.close();
    }
  });

  it('refuses a budget it cannot keep, and an application of another account', async () => {
    const { applicationId } = await createAppAndTemplate(h);
    const bad = await h.request('PUT', `/api/v1/applications/${applicationId}/budget`, { body: { currency: 'EUR', daily: '0', countries: { GBR: { daily: '1' } } } });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.requestError.serviceException.validationErrors.daily);
    assert.ok(bad.body.requestError.serviceException.validationErrors['countries.GBR']);
    const foreign = await h.request('PUT', `/api/v1/applications/${applicationId}/budget`, { key: h.keys.b, body: { currency: 'EUR', daily: '1' } });
    assert.equal(foreign.status, 404);
  });

  it('admits exactly the sends that fit under concurrent requests', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(h);
    await h.request('PUT', `/api/v1/applications/${applicationId}/budget`, { body: { currency: 'EUR', daily: '0.50' } });
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: `417930270${String(i).padStart(2, '0')}` } })));
    assert.deepEqual(answers.map((a) => a.status).filter((s) => s === 200).length, 10);
    assert.deepEqual(answers.map((a) => a.status).filter((s) => s === 429).length, 15);
    assert.equal((await h.request('GET', `/api/v1/applications/${applicationId}/budget`)).body.spent.daily, '0.5000');
  });
});

describe('prices and budgets in every dialect', () => {
  let h: Harness;
  before(async () => { h = await withPrices(); });
  after(async () => { await h.close(); });
  const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

  it('shows a Twilio attempt\'s price, and refuses a send past the account\'s budget with each dialect\'s documented error', async () => {
    // The account's cap holds one message: the first send spends it, and every dialect's next is refused.
    assert.equal((await h.request('PUT', '/api/v1/budget', { body: { currency: 'EUR', daily: '0.05' } })).status, 200);
    const service = (await h.request('POST', '/v2/Services', { rawBody: 'FriendlyName=Prices', headers: FORM })).body.sid as string;
    const started = await h.request('POST', `/v2/Services/${service}/Verifications`, { rawBody: 'To=%2B41793026727&Channel=sms', headers: FORM });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const pending = await h.request('GET', `/v2/Attempts?VerifyServiceSid=${service}`);
    assert.equal(pending.body.attempts[0].price, null, 'no price before a transport took the message');
    await h.node.worker.drain();
    const attempts = await h.request('GET', `/v2/Attempts?VerifyServiceSid=${service}`);
    assert.deepEqual(attempts.body.attempts[0].price, { value: '0.0500', currency: 'eur' });
    assert.deepEqual((await h.request('GET', `/v2/Attempts/${attempts.body.attempts[0].sid}`)).body.price, { value: '0.0500', currency: 'eur' });

    const twilio = await h.request('POST', `/v2/Services/${service}/Verifications`, { rawBody: 'To=%2B41793026728&Channel=sms', headers: FORM });
    assert.equal(twilio.status, 429);
    assert.equal(twilio.body.code, 20429);
    assert.match(twilio.body.message, /^Budget exceeded: /);

    const { applicationId, messageId } = await createAppAndTemplate(h);
    const infobip = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026729' } });
    assert.equal(infobip.status, 429);
    assert.equal(infobip.body.requestError.serviceException.messageId, 'TOO_MANY_REQUESTS');

    assert.equal((await h.request('PUT', '/api/v1/prelude/settings', { body: { applicationId } })).status, 200);
    const prelude = await h.request('POST', '/v2/verification', { body: { target: { type: 'phone_number', value: '+41793026730' } } });
    assert.equal(prelude.status, 429, JSON.stringify(prelude.body));
    assert.equal(prelude.body.code, 'too_many_requests');
    assert.match(prelude.body.message, /^Budget exceeded: /);

    const vonage = await h.request('POST', '/v2/verify', { body: { brand: 'Acme', workflow: [{ channel: 'sms', to: '41793026731' }] } });
    assert.equal(vonage.status, 429, JSON.stringify(vonage.body));
    assert.equal(vonage.body.title, 'Rate Limit Hit');
    assert.match(vonage.body.detail, /^Budget exceeded: /);
  });
});
