// Routes end to end (docs/routing.md): a node with three named transports, each a real stand-in (an
// SMSC over SMPP, Infobip's and Vonage's HTTP APIs on loopback), and a routes table in its config file.
// PINs sent through the API go where the table says, with its sender and India's DLT ids; a reload
// changes the routing without a restart and an invalid table is refused whole. The node's price list
// (TWOFA_PRICES_FILE) names the named transports: it prices what they deliver, what a budget counts at
// send, and what explain and the cheapest strategy read, a reload included.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Routing } from '../../src/delivery/routing/routing.js';
import type { Transport } from '../../src/delivery/transport.js';
import { PRICE_LIST_HEADER } from '../../src/domain/price-list.js';
import type { PriceList } from '../../src/domain/prices.js';
import { parseRoutes } from '../../src/domain/routes.js';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';
import { FakeProvider, type RecordedRequest } from './providers/fake-provider.js';
import { SmscPeer } from './smpp/smsc-peer.js';

const DLT_ENTITY = '1101234567890123456';
const DLT_TEMPLATE = '1107123456789012345';
const ESME_RINVDSTADR = 0x0b;

const INDIA = '919876543210';
const UK_PREFIXED = '447712345678';
const UK = '447400123456';
const US = '14155552671';
const GERMANY = '4915123456789';

const ROUTES = [
  { name: 'india', channel: 'sms', countries: ['IN'], transports: ['smsc', 'infobip'], sender: { id: 'ACMEIN', kind: 'alphanumeric' }, regulatory: { dltEntityId: DLT_ENTITY, dltTemplateId: DLT_TEMPLATE } },
  { name: 'uk', channel: 'sms', countries: ['GB'], transports: ['infobip'], sender: { id: 'Acme', kind: 'alphanumeric' } },
  { name: 'uk-4477', channel: 'sms', prefixes: ['4477'], transports: ['vonage'], sender: { id: 'AcmeUK', kind: 'alphanumeric' } },
  { name: 'north-america', channel: 'sms', countries: ['US', 'CA'], transports: ['infobip'], sender: { id: 'Acme', kind: 'alphanumeric' }, fallbackSender: { id: '15005550006', kind: 'long_code' } },
  { name: 'everywhere', channel: 'sms', transports: ['vonage', 'smsc'], sender: { id: 'AcmeCo', kind: 'alphanumeric' } },
];

let smsc: SmscPeer;
const infobip = new FakeProvider();
const vonage = new FakeProvider();
let h: Harness;
let configFile: string;
let pricesFile: string;
let app: { applicationId: string; messageId: string };

function writeConfig(routes: unknown): void {
  fs.writeFileSync(configFile, JSON.stringify({
    transports: {
      smsc: smsc.dsn().href,
      infobip: `infobip://KEY@127.0.0.1:${new URL(infobip.baseUrl).port}?scheme=http`,
      vonage: `vonage://KEY:SECRET@default?base_url=${encodeURIComponent(vonage.baseUrl)}`,
    },
    routes,
  }));
}

/** A price list of `transport,country,prefix,price,currency` lines, for the node's TWOFA_PRICES_FILE. */
function writePrices(lines: string[]): void {
  fs.writeFileSync(pricesFile, [PRICE_LIST_HEADER, ...lines].join('\n') + '\n');
}

/** The three stand-ins, answering "accepted", and a node whose config file holds them as named transports and `routes`, with a price list. */
async function startNode(routes: unknown, prices: string[] = []): Promise<void> {
  smsc = await SmscPeer.start();
  await infobip.start();
  await vonage.start();
  infobip.reset();
  vonage.reset();
  infobip.reply = { status: 200, body: { messages: [{ messageId: 'ib-1', status: { groupName: 'PENDING', name: 'PENDING_ENROUTE' } }] } };
  vonage.reply = { status: 200, body: { 'message-count': '1', messages: [{ status: '0', 'message-id': 'vg-1' }] } };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-routes-'));
  configFile = path.join(dir, 'twofa.config.json');
  pricesFile = path.join(dir, 'prices.csv');
  writeConfig(routes);
  writePrices(prices);
  h = await createHarness({ TWOFA_CONFIG: configFile, TWOFA_PRICES_FILE: pricesFile });
  // The template has no senderId: the route's sender applies (a template's would go first).
  app = await createAppAndTemplate(h, { template: { senderId: undefined } });
}

async function stopNode(): Promise<void> {
  await h.close();
  await smsc.stop();
  await infobip.stop();
  await vonage.stop();
}

async function send(to: string, body: Record<string, unknown> = {}): Promise<string> {
  const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId: app.applicationId, messageId: app.messageId, to, ...body } });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  await h.node.worker.drain();
  return sent.body.pinId as string;
}

const infobipMessages = () => infobip.requests.map((r) => (JSON.parse(r.body) as { messages: Record<string, any>[] }).messages[0]!);
const vonageForms = () => vonage.requests.map((r: RecordedRequest) => new URLSearchParams(r.body));
const lastTo = (to: string) => ({
  smsc: smsc.submits.filter((s) => s.destinationAddr === to),
  infobip: infobipMessages().filter((m) => m['destinations'][0].to === to),
  vonage: vonageForms().filter((f) => f.get('to') === to),
});

// India's lines per named transport (smsc, infobip); `smpp`, the SMSC's kind, is not a name the outbox records for a routed message.
const INDIA_PRICES = ['smsc,IN,,0.0020,EUR', 'infobip,IN,,0.0090,EUR', 'smpp,IN,,0.9000,EUR'];

describe('routes: named transports, rules by country and prefix, senders and DLT', () => {
  before(() => startNode(ROUTES, INDIA_PRICES));
  after(stopNode);

  it('sends numbers of several countries through their rule\'s transport, with its sender', async () => {
    await send(UK);
    await send(GERMANY);
    assert.deepEqual(lastTo(UK).infobip.map((m) => m['sender']), ['Acme'], 'GB: infobip, as the uk rule says');
    assert.equal(lastTo(UK).vonage.length + lastTo(UK).smsc.length, 0);
    assert.deepEqual(lastTo(GERMANY).vonage.map((f) => f.get('from')), ['AcmeCo'], 'no rule for DE: the catch-all, its first transport');
  });

  it('a prefix rule beats its country\'s, wherever it stands in the table', async () => {
    await send(UK_PREFIXED);
    assert.deepEqual(lastTo(UK_PREFIXED).vonage.map((f) => f.get('from')), ['AcmeUK']);
    assert.equal(lastTo(UK_PREFIXED).infobip.length, 0, 'not the GB rule listed before it');
  });

  it('a country that rejects letters gets the fallback sender', async () => {
    await send(US);
    assert.deepEqual(lastTo(US).infobip.map((m) => m['sender']), ['15005550006']);
  });

  it('India: the DLT ids reach the SMSC as vendor TLVs, with the route\'s sender', async () => {
    await send(INDIA);
    const [submit] = lastTo(INDIA).smsc;
    assert.ok(submit, 'the smsc took it');
    assert.equal(submit.sourceAddr, 'ACMEIN');
    assert.equal(submit.vendorTlvs.get(0x1400)?.toString('ascii'), DLT_ENTITY);
    assert.equal(submit.vendorTlvs.get(0x1401)?.toString('ascii'), DLT_TEMPLATE);
    assert.equal(lastTo(INDIA).infobip.length, 0);
    // Numbers of other countries carry no DLT TLVs.
    const german = smsc.submits.find((s) => s.destinationAddr === GERMANY);
    assert.equal(german, undefined);
  });

  it('fails over within the rule, per message: the SMSC refuses, Infobip takes it with the DLT ids', async () => {
    const india2 = '919876543211';
    smsc.answer = (s) => (s.destinationAddr === india2 ? { status: ESME_RINVDSTADR } : {});
    infobip.reply = { status: 200, body: { messages: [{ messageId: 'ib-india-2', status: { groupName: 'PENDING', name: 'PENDING_ENROUTE' } }] } };
    try {
      const pinId = await send(india2);
      assert.equal(lastTo(india2).smsc.length, 1, 'tried first');
      const [message] = lastTo(india2).infobip;
      assert.ok(message, 'then infobip');
      assert.deepEqual(message['options'], { regional: { indiaDlt: { principalEntityId: DLT_ENTITY, contentTemplateId: DLT_TEMPLATE } } });
      assert.equal(message['sender'], 'ACMEIN');
      const pin = await h.request('GET', `/api/v1/pins/${pinId}`);
      assert.equal(pin.status, 200);
      assert.deepEqual(pin.body.messages.map((m: { transport: string; price: unknown; priceSource: string }) => [m.transport, m.price, m.priceSource]),
        [['infobip', { amount: '0.0090', currency: 'EUR' }, 'list']], 'priced by the line of the named transport that took it, the second of the rule');
      // Infobip's delivery report says what it cost: its word replaces the list's.
      await h.node.receipts.receive({ transport: 'infobip', providerMessageId: 'ib-india-2', status: 'delivered', at: h.clock.now, price: { amount: '0.0070', currency: 'EUR' } });
      await h.node.receipts.settled();
      const reported = (await h.request('GET', `/api/v1/pins/${pinId}`)).body.messages[0];
      assert.deepEqual([reported.price, reported.priceSource], [{ amount: '0.0070', currency: 'EUR' }, 'provider']);
    } finally {
      smsc.answer = () => ({});
      infobip.reply = { status: 200, body: { messages: [{ messageId: 'ib-1', status: { groupName: 'PENDING', name: 'PENDING_ENROUTE' } }] } };
    }
  });

  it('prices by the named transports\' lines: the message the SMSC took, the budget\'s estimate, explain, and a reload seen by all', async () => {
    assert.equal((await h.request('PUT', '/api/v1/budget', { body: { currency: 'EUR', daily: '1.00' } })).status, 200);
    try {
      const pinId = await send('919876543212');
      const [message] = (await h.request('GET', `/api/v1/pins/${pinId}`)).body.messages;
      assert.deepEqual([message.transport, message.price], ['smsc', { amount: '0.0020', currency: 'EUR' }], 'the smsc line, not the line of its kind (smpp)');
      assert.equal((await h.request('GET', '/api/v1/budget')).body.spent.daily, '0.0020', 'the budget counted the rule\'s first transport at send');
      const explained = await h.request('GET', '/api/v1/routes/explain?channel=sms&to=%2B919876543213');
      assert.equal(explained.status, 200, JSON.stringify(explained.body));
      assert.deepEqual(explained.body.transports.map((t: { name: string; price: { amount: string; currency: string } | null }) => [t.name, t.price?.amount, t.price?.currency]),
        [['smsc', '0.0020', 'EUR'], ['infobip', '0.0090', 'EUR']]);

      writePrices(['smsc,IN,,0.0030,EUR', 'infobip,IN,,0.0090,EUR']);
      assert.equal((await h.request('POST', '/api/v1/prices/reload')).status, 200);
      const reexplained = await h.request('GET', '/api/v1/routes/explain?channel=sms&to=%2B919876543213');
      assert.equal(reexplained.body.transports[0].price.amount, '0.0030', 'explain reads the reloaded list');
      const repriced = await send('919876543214');
      assert.equal((await h.request('GET', `/api/v1/pins/${repriced}`)).body.messages[0].price.amount, '0.0030', 'so does delivery');
      assert.equal((await h.request('GET', '/api/v1/budget')).body.spent.daily, '0.0050', 'and the budget');
    } finally {
      writePrices(INDIA_PRICES);
      await h.request('POST', '/api/v1/prices/reload');
      await h.request('DELETE', '/api/v1/budget');
    }
  });

  it('precedence: the request\'s sender, then the application\'s for the country, then the template\'s, then the route\'s', async () => {
    const branded = await createAppAndTemplate(h, { template: { senderId: 'Template' } });
    const sendAs = async (to: string, body: Record<string, unknown> = {}) => {
      const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId: branded.applicationId, messageId: branded.messageId, to, ...body } });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      await h.node.worker.drain();
    };
    await sendAs('447400123401');
    assert.deepEqual(lastTo('447400123401').infobip.map((m) => m['sender']), ['Template'], 'the template over the route');
    const put = await h.request('PUT', `/api/v1/applications/${branded.applicationId}/senders/GB`, { body: { id: 'BrandGB', kind: 'alphanumeric' } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    await sendAs('447400123402');
    assert.deepEqual(lastTo('447400123402').infobip.map((m) => m['sender']), ['BrandGB'], 'the application\'s sender for GB over the template');
    await sendAs('447400123403', { from: 'Request' });
    assert.deepEqual(lastTo('447400123403').infobip.map((m) => m['sender']), ['Request'], 'the request over all');
    await sendAs('14155552672', { from: 'Request' });
    assert.deepEqual(lastTo('14155552672').infobip.map((m) => m['sender']), ['15005550006'], 'letters in the US: the fallback, whoever chose them');
    const listed = await h.request('GET', `/api/v1/applications/${branded.applicationId}/senders`);
    assert.deepEqual(listed.body.senders.map((s: { country: string; id: string }) => [s.country, s.id]), [['GB', 'BrandGB']]);
    assert.equal((await h.request('DELETE', `/api/v1/applications/${branded.applicationId}/senders/GB`)).status, 200);
    assert.equal((await h.request('DELETE', `/api/v1/applications/${branded.applicationId}/senders/GB`)).status, 404);
    const refused = await h.request('PUT', `/api/v1/applications/${branded.applicationId}/senders/GB`, { body: { id: '12', kind: 'short_code' } });
    assert.equal(refused.status, 400);
  });

  it('a reload changes the routing without a restart; an invalid table is refused whole and the current one stays', async () => {
    writeConfig([{ name: 'germany', channel: 'sms', countries: ['DE'], transports: ['smsc'], sender: { id: 'AcmeDE', kind: 'alphanumeric' } }, ...ROUTES]);
    const reloaded = await h.request('POST', '/api/v1/routes/reload');
    assert.equal(reloaded.status, 200, JSON.stringify(reloaded.body));
    await send('4915123456780');
    assert.deepEqual(lastTo('4915123456780').smsc.map((s) => s.sourceAddr), ['AcmeDE'], 'the new germany rule');

    writeConfig([{ channel: 'sms', countries: ['DE'], transports: ['nowhere'] }, { channel: 'sms', countries: ['FR'], transports: ['vonage'] }]);
    const refused = await h.request('POST', '/api/v1/routes/reload');
    assert.equal(refused.status, 409);
    assert.match(refused.body.requestError.serviceException.text, /routes\[0\]\.transports\[0\]: unknown transport "nowhere"/);
    assert.equal(h.node.reloadRoutes().ok, false, 'SIGHUP\'s reload refuses it too');
    await send('4915123456781');
    assert.equal(lastTo('4915123456781').smsc.length, 1, 'the table before the refused one still routes');
  });
});

describe('routes: the cheapest transport that converts', () => {
  // Vonage is the cheaper to France; the rule lists Infobip first. The node's price list says so.
  const prices = ['infobip,FR,,0.0700,EUR', 'vonage,FR,,0.0500,EUR'];
  const CHEAPEST = [{ name: 'france', channel: 'sms', countries: ['FR'], transports: ['infobip', 'vonage'], strategy: 'cheapest', minConversion: 0.6, sender: { id: 'Acme', kind: 'alphanumeric' } }];
  let next = 0;
  const frenchNumber = () => `3361234${String(5000 + next++).padStart(4, '0')}`;

  before(() => startNode(CHEAPEST, prices));
  after(stopNode);

  /** Sends a PIN to a new French number; answers which transport took it and the PIN as the phone got it. */
  async function sendOne(): Promise<{ pinId: string; by: 'infobip' | 'vonage'; pin: string }> {
    const to = frenchNumber();
    const pinId = await send(to);
    const sent = lastTo(to);
    const [viaVonage] = sent.vonage;
    const [viaInfobip] = sent.infobip.filter((_m, i) => i === sent.infobip.length - 1);
    // The last one that took it: a refused Infobip request is followed by Vonage's.
    const text = viaVonage !== undefined ? viaVonage.get('text') ?? '' : String(viaInfobip?.['content']?.text ?? '');
    return { pinId, by: viaVonage !== undefined ? 'vonage' : 'infobip', pin: /(\d{6})/.exec(text)?.[1] ?? '' };
  }

  async function verify(pinId: string, pin: string): Promise<void> {
    const verified = await h.request('POST', `/2fa/2/pin/${pinId}/verify`, { body: { pin } });
    assert.equal(verified.body.verified, true, JSON.stringify(verified.body));
  }

  const explainFrance = async () => (await h.request('GET', `/api/v1/routes/explain?channel=sms&to=${frenchNumber()}`)).body;

  it('takes the listed order without data, the cheapest converting transport with it, and moves away when its conversions drop', async () => {
    const first = await explainFrance();
    assert.equal(first.decision.decided, 'ordered', first.decision.reason);
    assert.deepEqual(first.transports.map((t: { name: string }) => t.name), ['infobip', 'vonage']);
    assert.deepEqual(first.transports.map((t: { price: { amount: string } }) => t.price.amount), ['0.0700', '0.0500']);

    // 20 PINs through Infobip, all verified.
    for (let i = 0; i < 20; i++) {
      const sent = await sendOne();
      assert.equal(sent.by, 'infobip', 'the listed order while nothing is measured');
      await verify(sent.pinId, sent.pin);
    }
    // Infobip refuses the next 20 for good: the rule fails over to Vonage, and those are verified too.
    infobip.reply = { status: 200, body: { messages: [{ messageId: 'ib-x', status: { groupName: 'REJECTED', name: 'REJECTED_DESTINATION' } }] } };
    for (let i = 0; i < 20; i++) {
      const sent = await sendOne();
      assert.equal(sent.by, 'vonage');
      await verify(sent.pinId, sent.pin);
    }
    infobip.reply = { status: 200, body: { messages: [{ messageId: 'ib-1', status: { groupName: 'PENDING', name: 'PENDING_ENROUTE' } }] } };
    // The node reads the shared counters again once its copy is older than some seconds.
    h.clock.advance(11_000);
    const measured = await explainFrance();
    assert.equal(measured.decision.decided, 'cheapest', measured.decision.reason);
    assert.deepEqual(measured.transports.map((t: { name: string }) => t.name), ['vonage', 'infobip']);
    assert.deepEqual(measured.transports.map((t: { conversion: { sent: number; verified: number } }) => [t.conversion.sent, t.conversion.verified]), [[20, 20], [20, 20]]);
    assert.equal((await sendOne()).by, 'vonage', 'both convert: the cheaper one');

    // Vonage's conversions drop: 30 more PINs through it, none verified.
    for (let i = 0; i < 29; i++) assert.equal((await sendOne()).by, 'vonage');
    h.clock.advance(11_000);
    const dropped = await explainFrance();
    assert.deepEqual(dropped.transports.map((t: { name: string; conversion: { rate: number } }) => [t.name, t.conversion.rate]), [['infobip', 1], ['vonage', 0.4]]);
    assert.match(dropped.decision.reason, /infobip is the cheapest transport converting at 0.6 or more/);
    assert.equal((await sendOne()).by, 'infobip', 'traffic moved to the transport that converts');
  });
});

describe('Routing.plannedTransports: what a send-time estimate prices', () => {
  it('names the transports a message would be tried through, in order; the channel\'s own DSN for a number no rule routes', async () => {
    const stub = (name: string): Transport => ({ name, send: async () => ({ ok: true }) });
    const own = stub('log');
    const parsed = parseRoutes([
      { channel: 'sms', countries: ['IN'], transports: ['smsc', 'infobip'] },
      { channel: 'sms', countries: ['FR'], transports: ['infobip', 'vonage'], strategy: 'cheapest', minConversion: 0.5 },
    ], ['smsc', 'infobip', 'vonage']);
    assert.ok(parsed.ok);
    const prices: PriceList = { priceOf: (transport) => ({ transport, country: 'FR', prefix: null, amount: transport === 'vonage' ? '0.01' : '0.02', currency: 'EUR' }) };
    const routing = new Routing(new Map([['smsc', stub('smpp')], ['infobip', stub('infobip')], ['vonage', stub('vonage')]]), parsed.rules, { sms: own }, {
      logger: pino({ level: 'silent' }), prices, clock: () => 0, loadRules: () => [],
      store: { conversionsTo: async () => new Map([['vonage', { sent: 50, verified: 40 }], ['infobip', { sent: 50, verified: 45 }]]), applicationSender: async () => undefined },
    });
    assert.deepEqual(await routing.plannedTransports('sms', '919876543210', 'APP'), ['smsc', 'infobip']);
    assert.deepEqual(await routing.plannedTransports('sms', '33612345678', 'APP'), ['vonage', 'infobip'], 'the cheapest that converts first');
    assert.deepEqual(await routing.plannedTransports('sms', '4915123456789', 'APP'), ['log']);
    assert.deepEqual(await routing.plannedTransports('voice', '919876543210', 'APP'), [], 'voice has no DSN of its own here');
  });
});
