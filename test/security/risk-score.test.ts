// The risk score on the wire (docs/security.md, "Risk score"): a run of sequential numbers that never
// verify is blocked in enforce mode with nothing queued, sent and recorded in shadow mode, not scored
// when off; a Safe List number is never blocked; decisions are listed with their signals; the same
// traffic gets the same decisions on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';
import type { KyselyStore } from '../../src/store/kysely-store.js';

/** UK mobile numbers 447400 100 000 + i: sequential, in one prefix. */
const sequential = (i: number) => `447400${String(100000 + i).padStart(6, '0')}`;

/** A price list for the pumped range (sequential(0) to sequential(99 999)): 0.03 EUR a message, what blocking one saves. */
function pricesFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-risk-prices-'));
  const file = path.join(dir, 'prices.csv');
  fs.writeFileSync(file, 'transport,country,prefix,price,currency\nlog,GB,4474001,0.0300,EUR\n');
  return file;
}
const PRICE = { amountMicros: 30_000, currency: 'EUR' };

async function appInMode(h: Harness, mode?: 'enforce' | 'shadow' | 'off') {
  const app = await createAppAndTemplate(h, { configuration: { sendPinPerApplicationLimit: '100000/1d' } });
  if (mode !== undefined) {
    const set = await h.request('PUT', `/api/v1/applications/${app.applicationId}/risk`, { body: { mode } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
  }
  return app;
}

/** Sends to `count` sequential numbers starting at `from`; the status of each answer. */
async function pump(h: Harness, app: { applicationId: string; messageId: string }, count: number, from = 0) {
  const answers: { status: number; body: any }[] = [];
  for (let i = from; i < from + count; i += 1) answers.push(await h.request('POST', '/2fa/2/pin', { body: { ...app, to: sequential(i) } }));
  return answers;
}

async function inboxCount(h: Harness): Promise<number> {
  await h.node.worker.drain();
  const inbox = await h.request('GET', '/api/v1/inbox?limit=1000');
  return inbox.body.messages.length;
}

function describeOn(label: string, open: () => Promise<{ h: Harness; database?: TestDatabase } | string>) {
  describe(`the risk score (${label})`, () => {
    let h: Harness;
    let database: TestDatabase | undefined;
    let skip: string | undefined;
    before(async () => {
      const opened = await open();
      if (typeof opened === 'string') skip = opened;
      else ({ h, database } = opened);
    });
    after(async () => {
      await h?.close();
      await database?.drop();
    });

    it('a new application is in enforce mode: sequential numbers that never verify are blocked with 403 naming the signals, and nothing is queued', async (t) => {
      if (skip) return t.skip(skip);
      const app = await appInMode(h);
      const mode = await h.request('GET', `/api/v1/applications/${app.applicationId}/risk`);
      assert.equal(mode.body.mode, 'enforce');
      const before = await inboxCount(h);
      const answers = await pump(h, app, 30);
      const sent = answers.filter((a) => a.status === 200).length;
      const blocked = answers.filter((a) => a.status === 403);
      assert.ok(sent >= 5, `the first sends go out (${sent})`);
      assert.ok(blocked.length >= 15, `most of the run is blocked (${blocked.length} of 30)`);
      assert.equal(blocked[0]!.body.requestError.serviceException.messageId, 'FORBIDDEN');
      assert.match(blocked[0]!.body.requestError.serviceException.text, /risk score \d+ reached the application's threshold 70: \w+ \+\d/);
      assert.ok(blocked.some((b) => /sequential_numbers \+\d/.test(b.body.requestError.serviceException.text)), 'the refusals name the signals that made them');
      assert.equal(await inboxCount(h) - before, sent, 'a blocked send queues nothing');

      const listed = await h.request('GET', `/api/v1/risk/decisions?applicationId=${app.applicationId}&decision=block&limit=5`);
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.equal(listed.body.decisions.length, 5);
      const decision = listed.body.decisions[0];
      assert.equal(decision.country, 'GB');
      assert.equal(decision.pinId, null);
      assert.ok(decision.score >= decision.threshold);
      // The first number of each block of ten has no neighbour in it yet; the page holds others.
      assert.ok(listed.body.decisions.some((d: any) => d.signals.some((s: any) => s.name === 'sequential_numbers' && s.points > 0)), JSON.stringify(listed.body.decisions.map((d: any) => d.signals)));
      const page2 = await h.request('GET', `/api/v1/risk/decisions?applicationId=${app.applicationId}&decision=block&limit=5&cursor=${listed.body.next}`);
      assert.equal(page2.body.decisions.length, 5);
      assert.ok(!page2.body.decisions.some((d: any) => listed.body.decisions.some((e: any) => e.id === d.id)), 'pages do not overlap');

      // Each block records the price of the message it refused (one SMS part at 0.03 EUR): what it saved.
      const blocks = await h.request('GET', `/api/v1/risk/decisions?applicationId=${app.applicationId}&decision=block&limit=1000`);
      assert.equal(blocks.body.decisions.length, blocked.length);
      assert.deepEqual(blocks.body.decisions.filter((d: any) => JSON.stringify(d.price) !== JSON.stringify(PRICE)), [], 'every block is priced');
      const allowed = await h.request('GET', `/api/v1/risk/decisions?applicationId=${app.applicationId}&decision=allow&limit=1000`);
      assert.deepEqual(allowed.body.decisions.filter((d: any) => d.price !== null), [], 'an allowed send is never priced');
      const savings = await h.request('GET', `/api/v1/risk/savings?applicationId=${app.applicationId}`);
      assert.equal(savings.status, 200, JSON.stringify(savings.body));
      assert.deepEqual(savings.body, {
        currencies: [{ currency: 'EUR', blockedMicros: blocked.length * 30_000, shadowBlockedMicros: 0, blocks: blocked.length, shadowBlocks: 0 }],
        unpriced: { blocks: 0, shadowBlocks: 0 },
      });
      const later = await h.request('GET', `/api/v1/risk/savings?applicationId=${app.applicationId}&since=${Date.now() + 3_600_000}`);
      assert.deepEqual(later.body, { currencies: [], unpriced: { blocks: 0, shadowBlocks: 0 } });
      const elsewhere = await h.request('GET', '/api/v1/risk/savings', { key: h.keys.b });
      assert.deepEqual(elsewhere.body, { currencies: [], unpriced: { blocks: 0, shadowBlocks: 0 } }, 'another account sees none of it');
    });

    it('shadow mode sends everything and records what it would have blocked, shown on the PIN', async (t) => {
      if (skip) return t.skip(skip);
      const app = await appInMode(h, 'shadow');
      const answers = await pump(h, app, 30, 1000);
      assert.deepEqual(answers.filter((a) => a.status !== 200), []);
      const listed = await h.request('GET', `/api/v1/risk/decisions?applicationId=${app.applicationId}&decision=shadow_block`);
      assert.ok(listed.body.decisions.length >= 15, `${listed.body.decisions.length} shadow blocks`);
      const pin = await h.request('GET', `/api/v1/pins/${listed.body.decisions[0].pinId}`);
      assert.equal(pin.status, 200);
      assert.equal(pin.body.risk.decision, 'shadow_block');
      assert.ok(pin.body.risk.signals.length > 0);
      // A shadow block records the price of the message sent anyway: what a block would have saved.
      assert.deepEqual(pin.body.risk.price, PRICE);
      const savings = await h.request('GET', `/api/v1/risk/savings?applicationId=${app.applicationId}`);
      const shadowBlocks = listed.body.decisions.length;
      assert.deepEqual(savings.body.currencies, [{ currency: 'EUR', blockedMicros: 0, shadowBlockedMicros: shadowBlocks * 30_000, blocks: 0, shadowBlocks }]);
    });

    it('webhook events of a scored PIN carry its assessment: score, decision and the signals that made it', async (t) => {
      if (skip) return t.skip(skip);
      const hook = await h.request('POST', '/api/v1/webhooks', { body: { url: 'https://hooks.example.com/risk', events: ['pin.sent'] } });
      assert.equal(hook.status, 200, JSON.stringify(hook.body));
      try {
        const app = await appInMode(h, 'shadow');
        const answers = await pump(h, app, 30, 9000);
        await h.node.worker.drain();
        const pinIds = answers.map((a) => a.body.pinId as string);
        const events = await (h.node.store as KyselyStore).db.selectFrom('event_outbox').select(['pin_id', 'payload']).where('event_type', '=', 'pin.sent').where('pin_id', 'in', pinIds).execute();
        assert.equal(events.length, 30);
        const risks = events.map((e) => JSON.parse(e.payload).data.risk);
        assert.ok(risks.every((r) => typeof r.score === 'number' && r.threshold === 70 && r.mode === 'shadow'), JSON.stringify(risks[0]));
        const shadowBlocked = risks.filter((r) => r.decision === 'shadow_block');
        assert.ok(shadowBlocked.length >= 15, `${shadowBlocked.length} shadow blocks`);
        assert.ok(shadowBlocked.every((r) => r.signals.length > 0 && r.signals.every((x: any) => x.points > 0 && typeof x.value === 'string')), JSON.stringify(shadowBlocked[0]));
        assert.equal(risks.find((r) => r.decision === 'allow')?.signals.some((x: any) => x.points === 0), false, 'only the signals that added points');
        // Every scored PIN's detail shows the same assessment, recorded decision or not.
        const allowed = events.find((e) => JSON.parse(e.payload).data.risk.decision === 'allow') ?? events[0]!;
        const detail = await h.request('GET', `/api/v1/pins/${allowed.pin_id}`);
        assert.deepEqual(detail.body.assessment, JSON.parse(allowed.payload).data.risk);
      } finally {
        await h.request('DELETE', `/api/v1/webhooks/${hook.body.id}`);
      }
    });

    it('off scores nothing and records nothing', async (t) => {
      if (skip) return t.skip(skip);
      const app = await appInMode(h, 'off');
      const answers = await pump(h, app, 30, 2000);
      assert.deepEqual(answers.filter((a) => a.status !== 200), []);
      const listed = await h.request('GET', `/api/v1/risk/decisions?applicationId=${app.applicationId}`);
      assert.deepEqual(listed.body.decisions, []);
    });

    it('a number on the Safe List is never blocked by its score', async (t) => {
      if (skip) return t.skip(skip);
      const app = await appInMode(h);
      await pump(h, app, 28, 3000);
      const listedNumber = sequential(3029);
      const added = await h.request('POST', '/api/v1/safe-list', { body: { phoneNumber: `+${listedNumber}` } });
      assert.equal(added.status, 200, JSON.stringify(added.body));
      assert.equal((await h.request('GET', `/api/v1/safe-list/%2B${listedNumber}`)).status, 200);
      const unlisted = await h.request('POST', '/2fa/2/pin', { body: { ...app, to: sequential(3028) } });
      assert.equal(unlisted.status, 403);
      const listed = await h.request('POST', '/2fa/2/pin', { body: { ...app, to: listedNumber } });
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      // Off the list, the same number is blocked like its neighbours.
      assert.equal((await h.request('DELETE', `/api/v1/safe-list/%2B${listedNumber}`)).status, 204);
      assert.equal((await h.request('POST', '/2fa/2/pin', { body: { ...app, to: listedNumber } })).status, 403);
    });

    it('a prefix on the Safe List lets every number it starts through, and its sends train no counter of the score', async (t) => {
      if (skip) return t.skip(skip);
      const app = await appInMode(h);
      const prefix = `+${sequential(8000).slice(0, -2)}`; // the 100 numbers sequential(8000) to sequential(8099)
      const added = await h.request('POST', '/api/v1/safe-list', { body: { prefix } });
      assert.equal(added.status, 200, JSON.stringify(added.body));
      assert.equal(added.body.prefix, prefix);
      const list = await h.request('GET', '/api/v1/safe-list');
      assert.ok(list.body.entries.some((e: any) => e.prefix === prefix), JSON.stringify(list.body));
      assert.equal((await h.request('GET', `/api/v1/safe-list/${encodeURIComponent(prefix)}*`)).status, 200);
      assert.equal((await h.request('POST', '/api/v1/safe-list', { body: { prefix: '4474' } })).status, 400);
      assert.equal((await h.request('POST', '/api/v1/safe-list', { body: { prefix, phoneNumber: '+447400100000' } })).status, 400);

      const listed = await pump(h, app, 40, 8000);
      assert.deepEqual(listed.filter((a) => a.status !== 200).map((a) => a.body), [], 'a run that would be blocked goes out under a listed prefix');
      // Had those 40 sends been counted, the next number of their 1000-block would start blocked
      // (prefix velocity and the prefix's conversion, 70 points); uncounted, it is a first send.
      const neighbour = await h.request('POST', '/2fa/2/pin', { body: { ...app, to: sequential(8100) } });
      assert.equal(neighbour.status, 200, JSON.stringify(neighbour.body));

      assert.equal((await h.request('DELETE', `/api/v1/safe-list/${encodeURIComponent(prefix)}*`)).status, 204);
      const after = await pump(h, app, 30, 8040);
      assert.ok(after.some((a) => a.status === 403), 'off the list, the same numbers are scored like any');
    });

    it('a device or session named by the caller (X-Client-Device-Id, X-Client-Session-Id, Prelude signals.device_id) moves the score once it asks for many numbers', async (t) => {
      if (skip) return t.skip(skip);
      const app = await appInMode(h, 'shadow');
      // A low threshold records every decision the device signal reaches alone.
      assert.equal((await h.request('PUT', `/api/v1/applications/${app.applicationId}/risk`, { body: { blockScore: 20 } })).status, 200);
      // Numbers spread over the country (no block shares two), so that only the device's count grows.
      const spread = (i: number) => `4477${String(i * 1_234_567 % 100_000_000).padStart(8, '0')}`;
      const deviceSignal = async (headers: Record<string, string>, from: number) => {
        for (let i = from; i < from + 9; i += 1) {
          const sent = await h.request('POST', '/2fa/2/pin', { body: { ...app, to: spread(i) }, headers });
          assert.equal(sent.status, 200, JSON.stringify(sent.body));
        }
        const listed = await h.request('GET', `/api/v1/risk/decisions?applicationId=${app.applicationId}&limit=1000`);
        const decision = listed.body.decisions.find((d: any) => d.destination === spread(from + 8));
        return decision?.signals.find((x: any) => x.name === 'client_device_velocity');
      };
      const device = await deviceSignal({ 'x-client-device-id': 'android-4f1c9a' }, 1);
      assert.ok(device?.points > 0, JSON.stringify(device));
      assert.match(device.value, /8 distinct numbers from this device or session/);
      const session = await deviceSignal({ 'x-client-session-id': 'sess-77' }, 100);
      assert.ok(session?.points > 0, JSON.stringify(session));

      const set = await h.request('PUT', '/api/v1/prelude/settings', { body: { applicationId: app.applicationId } });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      let last: any;
      for (let i = 200; i < 209; i += 1) {
        last = await h.request('POST', '/v2/verification', { key: null, headers: { authorization: `Bearer ${h.keys.a}` }, body: { target: { type: 'phone_number', value: `+${spread(i)}` }, signals: { device_id: 'ios-77aa' } } });
        assert.equal(last.status, 200, JSON.stringify(last.body));
      }
      assert.equal(last.body.status, 'shadow_blocked', JSON.stringify(last.body));
      const listed = await h.request('GET', `/api/v1/risk/decisions?applicationId=${app.applicationId}&limit=1000`);
      const prelude = listed.body.decisions.find((d: any) => d.destination === spread(208));
      assert.ok(prelude.signals.find((x: any) => x.name === 'client_device_velocity').points > 0, JSON.stringify(prelude.signals));
    });

    it('Twilio answers a blocked start with its Fraud Guard code 60410, and starts nothing', async (t) => {
      if (skip) return t.skip(skip);
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const service = await h.request('POST', '/v2/Services', { rawBody: 'FriendlyName=Shop', headers: form });
      assert.equal(service.status, 201, JSON.stringify(service.body));
      const answers = [];
      for (let i = 0; i < 30; i += 1) {
        answers.push(await h.request('POST', `/v2/Services/${service.body.sid}/Verifications`, { rawBody: `To=%2B${sequential(4000 + i)}&Channel=sms`, headers: form }));
      }
      const blocked = answers.filter((a) => a.status !== 201);
      assert.ok(blocked.length >= 15, `${blocked.length} of 30 blocked`);
      assert.equal(blocked[0]!.status, 403);
      assert.equal(blocked[0]!.body.code, 60410);
      assert.match(blocked[0]!.body.message, /risk score/);
      const fetched = await h.request('POST', `/v2/Services/${service.body.sid}/VerificationCheck`, { rawBody: `To=%2B${sequential(4029)}&Code=123456`, headers: form });
      assert.equal(fetched.status, 404, `a blocked start leaves no pending verification: ${JSON.stringify(fetched.body)}`);
    });

    it('Prelude answers blocked (reason suspicious) in enforce mode and shadow_blocked in shadow mode', async (t) => {
      if (skip) return t.skip(skip);
      const prelude = async (mode: 'enforce' | 'shadow', from: number) => {
        const app = await appInMode(h, mode);
        const set = await h.request('PUT', '/api/v1/prelude/settings', { body: { applicationId: app.applicationId } });
        assert.equal(set.status, 200, JSON.stringify(set.body));
        const answers = [];
        for (let i = from; i < from + 30; i += 1) {
          const r = await h.request('POST', '/v2/verification', { key: null, headers: { authorization: `Bearer ${h.keys.a}` }, body: { target: { type: 'phone_number', value: `+${sequential(i)}` } } });
          assert.equal(r.status, 200, JSON.stringify(r.body));
          answers.push(r.body);
        }
        return answers;
      };
      const enforced = await prelude('enforce', 5000);
      const blocked = enforced.filter((a) => a.status === 'blocked');
      assert.ok(blocked.length >= 15, `${blocked.length} of 30 blocked`);
      assert.equal(blocked[0].reason, 'suspicious');
      const shadowed = await prelude('shadow', 6000);
      const shadowBlocked = shadowed.filter((a) => a.status === 'shadow_blocked');
      assert.ok(shadowBlocked.length >= 15, `${shadowBlocked.length} of 30 shadow-blocked`);
      assert.equal(shadowBlocked[0].reason, 'suspicious');
      assert.deepEqual(shadowed.filter((a) => a.status !== 'success' && a.status !== 'shadow_blocked'), []);
    });

    it('ordinary traffic (a few sends to spread numbers in several countries) is never blocked', async (t) => {
      if (skip) return t.skip(skip);
      const app = await appInMode(h);
      const numbers = ['447911123456', '33612345678', '4915112345678', '14155550123', '393471234567', '34612345678', '61412345678', '819012345678'];
      for (let round = 0; round < 5; round += 1) {
        for (const [i, base] of numbers.entries()) {
          const to = `${base.slice(0, -4)}${String((round * 1237 + i * 4111) % 10000).padStart(4, '0')}`;
          const sent = await h.request('POST', '/2fa/2/pin', { body: { ...app, to } });
          assert.equal(sent.status, 200, `${to}: ${JSON.stringify(sent.body)}`);
        }
      }
    });
  });
}

describeOn('SQLite', async () => ({ h: await createHarness({ TWOFA_RISK_DEFAULT_MODE: 'enforce', TWOFA_PRICES_FILE: pricesFile() }) }));
describeOn('PostgreSQL', async () => {
  const skip = await skipUnlessPostgres();
  if (skip) return skip;
  const database = await createTestDatabase('risk');
  return { h: await createHarness({ TWOFA_RISK_DEFAULT_MODE: 'enforce', TWOFA_PRICES_FILE: pricesFile(), TWOFA_DATABASE_URL: database.url }), database };
});

describe('the risk score without a price list', () => {
  let h: Harness;
  before(async () => { h = await createHarness({ TWOFA_RISK_DEFAULT_MODE: 'enforce' }); });
  after(async () => { await h.close(); });

  it('records blocks without a price, and the savings count them unpriced', async () => {
    const app = await appInMode(h);
    const blocked = (await pump(h, app, 30)).filter((a) => a.status === 403).length;
    assert.ok(blocked >= 15, `most of the run is blocked (${blocked} of 30)`);
    const listed = await h.request('GET', `/api/v1/risk/decisions?applicationId=${app.applicationId}&decision=block&limit=1000`);
    assert.deepEqual(listed.body.decisions.map((d: any) => d.price), listed.body.decisions.map(() => null));
    const savings = await h.request('GET', `/api/v1/risk/savings?applicationId=${app.applicationId}`);
    assert.deepEqual(savings.body, { currencies: [], unpriced: { blocks: blocked, shadowBlocks: 0 } });
  });
});

describe('the risk score decides the same on SQLite and PostgreSQL', () => {
  it('gives the same traffic the same answers and scores', async (t) => {
    const skip = await skipUnlessPostgres();
    if (skip) return t.skip(skip);
    const database = await createTestDatabase('risk-same');
    const sqlite = await createHarness({ TWOFA_RISK_DEFAULT_MODE: 'enforce' });
    const postgres = await createHarness({ TWOFA_RISK_DEFAULT_MODE: 'enforce', TWOFA_DATABASE_URL: database.url });
    try {
      const run = async (h: Harness) => {
        const app = await appInMode(h, 'shadow');
        // Sequential numbers, a premium-rate number, verified and unverified sends, one resend: each signal's counters.
        const statuses = (await pump(h, app, 20, 7000)).map((a) => a.status);
        statuses.push((await h.request('POST', '/2fa/2/pin', { body: { ...app, to: '448712345678' } })).status);
        const listed = await h.request('GET', `/api/v1/risk/decisions?applicationId=${app.applicationId}&decision=shadow_block&limit=1000`);
        return { statuses, decisions: listed.body.decisions.map((d: any) => [d.destination, d.score, d.decision, d.signals.map((s: any) => [s.name, s.points])]).sort((x: any, y: any) => x[0].localeCompare(y[0])) };
      };
      assert.deepEqual(await run(postgres), await run(sqlite));
    } finally {
      await sqlite.close();
      await postgres.close();
      await database.drop();
    }
  });
});
