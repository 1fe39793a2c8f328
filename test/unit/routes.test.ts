// The routes table's pure rules (src/domain/routes.ts): a table refused whole with every problem named,
// which rule a number takes, which sender goes, and how the cheapest strategy orders transports.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { chooseSender, compareDecimal, decideCheapest, matchRoute, parseRoutes, type RouteRule } from '../../src/domain/routes.js';
import { ALPHANUMERIC_REJECTED_COUNTRIES, senderKindOf } from '../../src/domain/sender-ids.js';

const NAMES = ['smsc', 'infobip', 'vonage'];

function rules(table: unknown[]): RouteRule[] {
  const parsed = parseRoutes(table, NAMES);
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  return parsed.rules;
}

describe('routes table', () => {
  it('is refused whole, every problem named with its rule\'s place', () => {
    const parsed = parseRoutes([
      { channel: 'sms', countries: ['IN'], transports: ['smsc'] },
      { channel: 'email', transports: ['smsc'] },
      { channel: 'sms', countries: ['India'], prefixes: ['+44x'], transports: ['nowhere'], strategy: 'cheapest', colour: 'blue' },
      { channel: 'sms', countries: ['US'], transports: ['infobip'], sender: { id: 'Acme', kind: 'alphanumeric' } },
      { channel: 'sms', transports: ['vonage'], regulatory: { dltEntityId: 'abc' }, fallbackSender: { id: 'Acme', kind: 'alphanumeric' } },
    ], NAMES);
    assert.equal(parsed.ok, false);
    const errors = parsed.ok ? [] : parsed.errors;
    for (const expected of [
      /^routes\[1\]\.channel: must be one of sms, voice, whatsapp, telegram \(email has no country to route by\)$/,
      /^routes\[2\]: unknown field "colour"/,
      /^routes\[2\]\.countries\[0\]: "INDIA" is not an ISO 3166-1 alpha-2 code/,
      /^routes\[2\]\.prefixes\[0\]: "44x" is not the leading digits/,
      /^routes\[2\]\.transports\[0\]: unknown transport "nowhere" \(named transports: smsc, infobip, vonage\)$/,
      /^routes\[2\]\.minConversion: the cheapest strategy needs/,
      /^routes\[3\]\.fallbackSender: US reject alphanumeric senders/,
      /^routes\[4\]\.regulatory\.dltEntityId: must be a string of digits/,
      /^routes\[4\]\.fallbackSender: must be a long_code or short_code/,
    ]) assert.ok(errors.some((e) => expected.test(e)), `${expected} in ${errors.join('\n')}`);
    assert.equal(errors.some((e) => e.startsWith('routes[0]')), false, 'the valid rule has no problem');
    assert.deepEqual(parseRoutes({ channel: 'sms' }, NAMES), { ok: false, errors: ['routes must be a JSON array of rules, e.g. [{"channel":"sms","countries":["IN"],"transports":["smsc"]}]'] });
  });

  it('matches the longest prefix over the country, the country over a catch-all, the first among equals', () => {
    const table = rules([
      { name: 'any', channel: 'sms', transports: ['vonage'] },
      { name: 'gb', channel: 'sms', countries: ['GB'], transports: ['infobip'] },
      { name: 'gb-again', channel: 'sms', countries: ['GB'], transports: ['smsc'] },
      { name: '44', channel: 'sms', prefixes: ['44'], transports: ['smsc'] },
      { name: '4477', channel: 'sms', prefixes: ['447', '4477'], transports: ['vonage'] },
      { name: 'voice-gb', channel: 'voice', countries: ['GB'], transports: ['smsc'] },
    ]);
    const take = (to: string, country: string | undefined, channel: 'sms' | 'voice' = 'sms') => matchRoute(table, channel, to, country);
    assert.deepEqual([take('447712345678', 'GB')?.rule.name, take('447712345678', 'GB')?.match], ['4477', { by: 'prefix', prefix: '4477' }]);
    assert.deepEqual(take('447712345678', 'GB')?.outranked.map((o) => o.rule.name), ['44', 'gb', 'gb-again', 'any']);
    assert.equal(take('441234567890', 'GB')?.rule.name, '44', 'any prefix beats the country');
    assert.equal(take('33612345678', 'FR')?.rule.name, 'any');
    assert.equal(take('447712345678', 'GB', 'voice')?.rule.name, 'voice-gb', 'rules of other channels never match');
    assert.equal(matchRoute(rules([{ channel: 'sms', countries: ['GB'], transports: ['smsc'] }]), 'sms', '33612345678', 'FR'), undefined);
    const countriesOnly = rules([{ name: 'first', channel: 'sms', countries: ['GB'], transports: ['smsc'] }, { name: 'second', channel: 'sms', countries: ['GB', 'IE'], transports: ['vonage'] }]);
    assert.equal(matchRoute(countriesOnly, 'sms', '447400123456', 'GB')?.rule.name, 'first');
  });

  it('chooses the request\'s sender, then the application\'s, the template\'s, the route\'s; the fallback where letters are rejected', () => {
    const rule = { sender: { id: 'Route', kind: 'alphanumeric' as const }, fallbackSender: { id: '15005550006', kind: 'long_code' as const } };
    const all = { request: 'Request', application: { id: 'App', kind: 'alphanumeric' as const }, template: 'Template' };
    assert.deepEqual(chooseSender(all, rule, 'GB'), { sender: { id: 'Request', kind: 'alphanumeric' }, source: 'request' });
    assert.equal(chooseSender({ ...all, request: undefined }, rule, 'GB').source, 'application');
    assert.equal(chooseSender({ template: 'Template' }, rule, 'GB').source, 'template');
    assert.equal(chooseSender({}, rule, 'GB').source, 'route');
    assert.deepEqual(chooseSender({}, undefined, 'GB'), { sender: undefined, source: 'transport' });
    const us = chooseSender(all, rule, 'US');
    assert.deepEqual([us.sender?.id, us.source], ['15005550006', 'fallback']);
    assert.match(us.note ?? '', /US rejects alphanumeric senders: Request \(request\) set aside/);
    assert.deepEqual(chooseSender({ request: '12025550100' }, rule, 'US').source, 'request', 'a number is no letters');
    assert.deepEqual(chooseSender({ template: 'Template' }, { sender: undefined, fallbackSender: undefined }, 'CA').sender, undefined, 'no fallback: the transport\'s default');
    assert.deepEqual(['Acme', '+15005550006', '12345', '4915123456789'].map(senderKindOf), ['alphanumeric', 'long_code', 'short_code', 'long_code']);
    assert.ok(ALPHANUMERIC_REJECTED_COUNTRIES.has('US') && !ALPHANUMERIC_REJECTED_COUNTRIES.has('GB'));
  });

  it('cheapest: the lowest price among transports that convert enough, the listed order without data', () => {
    const eur = (amount: string) => ({ amount, currency: 'EUR' });
    const measured = (sent: number, verified: number) => ({ sent, verified });
    assert.deepEqual(decideCheapest([
      { transport: 'a', price: eur('0.07'), conversion: undefined },
      { transport: 'b', price: eur('0.05'), conversion: measured(10, 10) },
    ], 0.6).decided, 'ordered', 'ten sends are not enough data');
    const chosen = decideCheapest([
      { transport: 'a', price: eur('0.0700'), conversion: measured(40, 30) },
      { transport: 'b', price: eur('0.05'), conversion: measured(40, 20) },
      { transport: 'c', price: eur('0.0650'), conversion: measured(100, 90) },
    ], 0.6);
    assert.deepEqual([chosen.decided, chosen.order], ['cheapest', ['c', 'a', 'b']], 'b is cheapest but converts at 0.5');
    assert.equal(decideCheapest([
      { transport: 'a', price: eur('0.07'), conversion: measured(40, 40) },
      { transport: 'b', price: { amount: '0.01', currency: 'USD' }, conversion: measured(40, 40) },
    ], 0.6).decided, 'ordered', 'currencies are not compared');
    assert.deepEqual(['0.0450' < '0.05', compareDecimal('0.0450', '0.05'), compareDecimal('10.0', '9.99'), compareDecimal('0.10', '0.1')], [true, -1, 1, 0]);
  });
});

describe('docs/routing.md, the worked example', () => {
  const page = fs.readFileSync(new URL('../../docs/routing.md', import.meta.url), 'utf8');
  const example = page.slice(page.indexOf('## Worked example'));
  const json = /```json\n([\s\S]*?)```/.exec(example)?.[1] ?? '';

  it('is a table twofa accepts, and routes each number it lists as it says', () => {
    const table = rules((JSON.parse(json) as { routes: unknown[] }).routes);
    const ruleOf = (to: string, country: string) => matchRoute(table, 'sms', to, country)?.rule.name;
    assert.deepEqual([
      ruleOf('919876543210', 'IN'), ruleOf('447400123456', 'GB'), ruleOf('447712345678', 'GB'),
      ruleOf('14155552671', 'US'), ruleOf('33612345678', 'FR'), ruleOf('4915123456789', 'DE'),
    ], ['india', 'uk', 'uk-4477', 'north-america', 'france', 'everywhere']);
    for (const [to, rule] of [['+919876543210', 'india'], ['+447400123456', 'uk'], ['+447712345678', 'uk-4477'], ['+14155552671', 'north-america'], ['+33612345678', 'france']]) {
      assert.match(example, new RegExp(`\`\\${to}\`: rule \`${rule}\``), `the page says ${to} takes ${rule}`);
    }
    const us = chooseSender({}, table.find((r) => r.name === 'north-america'), 'US');
    assert.equal(us.sender?.id, '15005550006');
  });
});
