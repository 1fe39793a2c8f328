// The price list (domain/price-list.ts), money without floats (domain/money.ts), budget periods and
// thresholds (domain/budgets.ts), and the prices providers report (provider-http.ts reportedPrice).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { budgetCharges, budgetPeriod, crossedThresholds, type Budget } from '../../src/domain/budgets.js';
import { phoneCountry } from '../../src/domain/destinations.js';
import { formatMicros, parseMicros } from '../../src/domain/money.js';
import { parsePriceList, priceMessage, PriceListError } from '../../src/domain/price-list.js';
import { reportedPrice } from '../../src/delivery/providers/provider-http.js';

describe('money in micro-units', () => {
  it('reads and writes decimal strings exactly', () => {
    assert.equal(parseMicros('0.0450'), 45_000);
    assert.equal(parseMicros('12'), 12_000_000);
    assert.equal(parseMicros('0.000001'), 1);
    for (const bad of ['0.0000001', '-1', '1e-3', '', '0,5', 'abc']) assert.equal(parseMicros(bad), undefined, bad);
    assert.equal(formatMicros(45_000), '0.0450');
    assert.equal(formatMicros(1), '0.000001');
    assert.equal(formatMicros(12_345_600), '12.3456');
    // 0.1 + 0.2 in micro-units is exactly 0.3.
    assert.equal(formatMicros(parseMicros('0.1')! + parseMicros('0.2')!), '0.3000');
  });
});

describe('the price list', () => {
  const list = parsePriceList([
    'transport,country,prefix,price,currency',
    'twilio,GB,,0.0400,eur',
    'twilio,GB,447,0.0300,EUR',
    'twilio,GB,4477,0.0350,EUR',
    'vonage,CH,+41,0.05,CHF',
  ].join('\n'), 'prices.csv', phoneCountry);

  it('matches the longest prefix first, then the country, per transport', () => {
    assert.equal(list.priceOf('twilio', '447700900123')?.amount, '0.0350');
    assert.equal(list.priceOf('twilio', '447400900123')?.amount, '0.0300');
    assert.deepEqual(list.priceOf('twilio', '442079460123'), { transport: 'twilio', country: 'GB', prefix: null, amount: '0.0400', currency: 'EUR' });
    assert.equal(list.priceOf('vonage', '+41793026727')?.prefix, '41');
    assert.equal(list.priceOf('vonage', '447700900123'), undefined);
    assert.equal(list.priceOf('smpp', '447700900123'), undefined);
  });

  it('prices a message per SMS part, and lets a provider\'s reported price override the list', () => {
    const sms = priceMessage(list, { channel: 'sms', transport: 'twilio', to: '442079460123', segments: 3 }, phoneCountry);
    assert.deepEqual(sms, { channel: 'sms', transport: 'twilio', segments: 3, amount: 120_000, currency: 'EUR', country: 'GB', prefix: null, source: 'list' });
    const reported = priceMessage(list, { channel: 'sms', transport: 'twilio', to: '442079460123', segments: 3 }, phoneCountry, { amount: '0.1111', currency: 'USD' });
    assert.deepEqual([reported.amount, reported.currency, reported.source], [111_100, 'USD', 'provider']);
    const unpriced = priceMessage(list, { channel: 'sms', transport: 'twilio', to: '14155550100', segments: 1 }, phoneCountry);
    assert.deepEqual([unpriced.amount, unpriced.country, unpriced.source], [null, 'US', 'none']);
    assert.equal(priceMessage(list, { channel: 'email', transport: 'smtp', to: 'a@example.com', segments: 1 }, phoneCountry).country, null);
  });

  it('refuses a list with any bad line whole, naming every one', () => {
    assert.throws(() => parsePriceList('twilio,GB,,0.04,EUR\ntwilio,UK,,0.04,EUR\ntwilio,GB,44a,0.04,EUR\ntwilio,GB,,free,EUR\ntwilio,GB,,0.04,EURO\ntwilio,GB\ntwilio,gb,,0.05,EUR', 'p.csv', phoneCountry), (err: unknown) => {
      assert.ok(err instanceof PriceListError);
      assert.deepEqual(err.problems.map((p) => p.split(':')[0]), ['line 2', 'line 3', 'line 4', 'line 5', 'line 6', 'line 7']);
      assert.match(err.message, /^the price list p\.csv is refused: /);
      assert.match(err.message, /line 7: twilio GB is priced twice/);
      return true;
    });
  });
});

describe('budgets', () => {
  const now = Date.parse('2026-11-28T13:45:00Z');
  const budget = (scope: 'account' | 'application', caps: Budget['caps'], currency = 'EUR'): Budget => ({
    scope, accountId: 'ACC', applicationId: scope === 'account' ? null : 'APP', currency, caps, updatedAt: now,
  });

  it('counts UTC days and calendar months', () => {
    assert.deepEqual(budgetPeriod('daily', now), { start: Date.parse('2026-11-28T00:00:00Z'), end: Date.parse('2026-11-29T00:00:00Z') });
    assert.deepEqual(budgetPeriod('monthly', now), { start: Date.parse('2026-11-01T00:00:00Z'), end: Date.parse('2026-12-01T00:00:00Z') });
    assert.equal(budgetPeriod('monthly', Date.parse('2026-12-31T23:59:59Z')).end, Date.parse('2027-01-01T00:00:00Z'));
  });

  it('charges every cap in the price\'s currency, the country\'s own caps besides', () => {
    const charges = budgetCharges([
      budget('application', { daily: 1_000_000, monthly: null, countries: { GB: { daily: 200_000, monthly: 500_000 } } }),
      budget('account', { daily: null, monthly: 9_000_000, countries: {} }),
      budget('account', { daily: 1, monthly: 1, countries: {} }, 'USD'),
    ], 45_000, 'EUR', 'GB', now);
    assert.deepEqual(charges.map((c) => [c.key, c.cap, c.amount]), [
      ['budget:app:APP:daily', 1_000_000, 45_000],
      ['budget:app:APP:daily:GB', 200_000, 45_000],
      ['budget:app:APP:monthly:GB', 500_000, 45_000],
      ['budget:acct:ACC:monthly', 9_000_000, 45_000],
    ]);
  });

  it('reports 80 % and 100 % once, to the send that crosses them', () => {
    const charge = { key: 'k', periodStart: 0, expiresAt: 1, amount: 30, cap: 100 };
    assert.deepEqual(crossedThresholds(charge, 60), []);
    assert.deepEqual(crossedThresholds(charge, 90), [80]);
    assert.deepEqual(crossedThresholds(charge, 100), [80, 100]);
    assert.deepEqual(crossedThresholds({ ...charge, amount: 10 }, 100), [100]);
    assert.deepEqual(crossedThresholds({ ...charge, amount: 10 }, 80), [80]);
  });
});

describe('prices reported by providers', () => {
  it('takes decimal text or a JSON number, a debit written negative (Twilio), and nothing that is not a price', () => {
    assert.deepEqual(reportedPrice('0.03330000', 'EUR'), { amount: '0.0333', currency: 'EUR' });
    assert.deepEqual(reportedPrice(0.01, 'USD'), { amount: '0.0100', currency: 'USD' });
    assert.deepEqual(reportedPrice('-0.00750', 'USD', true), { amount: '0.0075', currency: 'USD' });
    assert.equal(reportedPrice(null, 'USD'), undefined);
    assert.equal(reportedPrice('0.01', undefined), undefined);
    assert.equal(reportedPrice('-0.01', 'USD'), undefined);
  });
});
