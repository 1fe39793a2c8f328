// T26 kill9-during-sends and T27 kill9-during-verifies: a real `twofa serve` process on a SQLite file,
// under send (or verify) load from 8 lanes, is killed with SIGKILL at a random moment, restarted on
// the same data folder, and loaded again, cycle after cycle. Then: every send it acknowledged (200) was
// delivered to the provider (a webhook receiver) at least once, duplicates are counted, no PIN lacks
// its outbox row, nothing is left pending, `PRAGMA integrity_check` is ok; no acknowledged
// verification can be repeated, attempt counters never went back up, no PIN is both locked and
// verified. (kill -9 cannot tell synchronous=FULL from NORMAL: power loss is out of scope here.)
// Then, with the default lease, on SQLite and on PostgreSQL: a node killed while it has deliveries in
// flight, restarted, delivers every PIN it acknowledged within 10 s of being ready again (the user is
// waiting for the code), because it takes back at once what it held under its node id.
// Standards: ASVS 5.0 2.3.3, 16.5.2, 16.5.3; ASVS 4.0.3 11.1.6; NIST 800-63B §5.1.3.2 (accept once).
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { startWebhookReceiver, type WebhookReceiver } from '../multinode/cluster.js';
import { createAppAndTemplate, createJsonClient, expectOk } from '../support/json-client.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { countBy, createResults, scale, wrongPinFor } from './support/results.js';

const results = createResults('crash-recovery', {
  tests: ['T26', 'T27'],
  standards: ['ASVS 5.0 2.3.3', 'ASVS 5.0 16.5.2', 'ASVS 5.0 16.5.3', 'ASVS 4.0.3 11.1.6', 'NIST 800-63B §5.1.3.2'],
});

/** Polls the outbox (read-only, beside the running server: WAL allows it) until no message is pending (first messages are on their PINs). */
async function waitForEmptyOutbox(dbFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const db = new Database(dbFile, { readonly: true });
    let pending: number;
    try {
      pending = (db.prepare("select (select count(*) from pins where message_state = 'pending') + (select count(*) from outbox where state = 'pending') as n").get() as { n: number }).n;
    } finally {
      db.close();
    }
    if (pending === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('kill -9 during sends and verifies (SQLite file)', () => {
  let receiver: WebhookReceiver;
  let dataDir: string;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;
  let app: { applicationId: string; messageId: string };

  const start = async () => {
    server = await startServerProcess(env, { timeoutMs: 60_000 });
    return createJsonClient(server.url, server.key);
  };
  const kill = async () => {
    process.kill(server!.pid, 'SIGKILL');
    assert.equal(await server!.stop(), null, 'died of SIGKILL');
    server = undefined;
    results.add('killCycles');
  };

  before(async () => {
    receiver = await startWebhookReceiver();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-crash-'));
    env = {
      TWOFA_DATA_DIR: dataDir, TWOFA_LOG_LEVEL: 'warn', TWOFA_DELIVERY_LEASE: '2s',
      TWOFA_SMS_DSN: `webhook+http://127.0.0.1:${receiver.port}/crash?secret=whsec_${randomBytes(32).toString('base64').replace(/\+/g, 'A')}`,
    };
    const client = await start();
    app = await createAppAndTemplate(client, { pinAttempts: 5, allowMultiplePinVerifications: false, verifyPinLimit: '100000/1s', sendPinPerPhoneNumberLimit: '100000/1d', sendPinPerApplicationLimit: '1000000/1d' });
  });
  after(async () => {
    results.save();
    await server?.stop();
    await receiver?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(`T26: ${scale(2, 20)} SIGKILLs during send load lose no acknowledged send; the database stays consistent`, async () => {
    const acknowledged = new Set<string>();
    let phone = 0;
    for (let cycle = 0; cycle < scale(2, 20); cycle += 1) {
      const client = server ? createJsonClient(server.url, server.key) : await start();
      let stop = false;
      const lane = async () => {
        while (!stop) {
          try {
            const r = await client.post('/2fa/2/pin', { ...app, to: `41795${String(100_000 + (phone += 1)).padStart(6, '0')}` });
            if (r.status === 200) acknowledged.add(r.body.pinId as string);
            else if (r.status >= 500) results.add('fiveXX');
          } catch {
            return; // the process died under us: not acknowledged, not owed
          }
        }
      };
      const lanes = Array.from({ length: 8 }, lane);
      await new Promise((resolve) => setTimeout(resolve, randomInt(300, 1500)));
      await kill();
      stop = true;
      await Promise.all(lanes);
    }
    // Restart and let it deliver what the killed processes had queued or leased.
    await start();
    await receiver.waitForDeliveries(acknowledged, 60_000);
    const accepted = receiver.deliveries.filter((d) => d.accepted && acknowledged.has(d.pinId));
    const perPin = countBy(accepted, (d) => d.pinId);
    const duplicates = Object.values(perPin).reduce((s, n) => s + n - 1, 0);
    const lost = [...acknowledged].filter((id) => !perPin[id]);
    results.add('acknowledgedSends', acknowledged.size);
    results.add('deliveredUnique', Object.keys(perPin).length);
    results.add('deliveredTotal', accepted.length);
    results.add('lostMessages', lost.length);
    results.add('duplicateDeliveries', duplicates);
    assert.deepEqual(lost, [], 'every acknowledged send delivered');
    assert.ok(acknowledged.size > 0);
    // A send can be committed and then killed before its 200 left the process: not acknowledged, but
    // still owed a delivery. Wait for the restarted worker to drain those too before judging the outbox.
    await waitForEmptyOutbox(path.join(dataDir, 'twofa.db'), 60_000);

    await server!.stop();
    server = undefined;
    const db = new Database(path.join(dataDir, 'twofa.db'), { readonly: true });
    try {
      const integrity = db.pragma('integrity_check', { simple: true });
      const orphanPins = db.prepare('select count(*) as n from pins p where p.delivery_id is null and not exists (select 1 from outbox o where o.pin_id = p.id)').get() as { n: number };
      const orphanOutbox = db.prepare('select count(*) as n from outbox o where not exists (select 1 from pins p where p.id = o.pin_id)').get() as { n: number };
      const pending = db.prepare("select (select count(*) from pins where message_state = 'pending') + (select count(*) from outbox where state = 'pending') as n").get() as { n: number };
      results.set('T26.integrityCheck', String(integrity));
      assert.equal(integrity, 'ok');
      assert.equal(orphanPins.n, 0, 'no PIN without its message');
      assert.equal(orphanOutbox.n, 0, 'no outbox row without its PIN');
      assert.equal(pending.n, 0, 'nothing left pending or leased after restart');
      if (integrity === 'ok') results.add('integrityChecksOk');
    } finally {
      db.close();
    }
    results.check('T26', true, `${results.counters['killCycles']} SIGKILLs under 8-lane send load: ${acknowledged.size} acknowledged, ${Object.keys(perPin).length} delivered (0 lost, ${duplicates} duplicates); integrity_check ok; no orphan rows; nothing pending`);
  });

  it(`T27: ${scale(1, 20)} SIGKILLs during verify load: no acknowledged verification repeats, counters never rise, no PIN both locked and verified`, async () => {
    let client = server ? createJsonClient(server.url, server.key) : await start();
    const pins: { pinId: string; pin: string }[] = [];
    for (let i = 0; i < 40; i += 1) {
      const sent = expectOk(await client.post('/2fa/2/pin', { ...app, to: `41794${String(100_000 + i).padStart(6, '0')}` }), 'send');
      pins.push({ pinId: sent.body.pinId as string, pin: await receiver.pinFor(sent.body.pinId as string, 20_000) });
    }
    const verifiedAcks = new Map<string, number>();
    const lowestRemaining = new Map<string, number>();
    for (let cycle = 0; cycle < scale(1, 20); cycle += 1) {
      if (!server) client = await start();
      let stop = false;
      const lane = async (l: number) => {
        for (let i = l; !stop; i += 8) {
          const target = pins[i % pins.length]!;
          // Mostly wrong guesses, a right one now and then.
          const candidate = randomInt(0, 4) === 0 ? target.pin : wrongPinFor(target.pin);
          try {
            const r = await client.post(`/2fa/2/pin/${target.pinId}/verify`, { pin: candidate });
            results.add('verifiesUnderKill');
            if (r.status >= 500) results.add('fiveXX');
            if (r.body?.verified === true) verifiedAcks.set(target.pinId, (verifiedAcks.get(target.pinId) ?? 0) + 1);
            if (typeof r.body?.attemptsRemaining === 'number') lowestRemaining.set(target.pinId, Math.min(lowestRemaining.get(target.pinId) ?? 99, r.body.attemptsRemaining));
          } catch {
            return;
          }
        }
      };
      const lanes = Array.from({ length: 8 }, (_, l) => lane(l));
      await new Promise((resolve) => setTimeout(resolve, randomInt(300, 1200)));
      await kill();
      stop = true;
      await Promise.all(lanes);
    }
    client = await start();
    const twice = [...verifiedAcks.entries()].filter(([, n]) => n > 1);
    results.add('verifiedTwice', twice.length);
    results.add('acknowledgedVerifications', verifiedAcks.size);
    assert.deepEqual(twice, [], 'no PIN acknowledged verified twice');
    for (const pinId of verifiedAcks.keys()) {
      const again = await client.post(`/2fa/2/pin/${pinId}/verify`, { pin: pins.find((p) => p.pinId === pinId)!.pin });
      assert.equal(again.body.verified, false, `${pinId} re-verified after restart`);
    }
    await server!.stop();
    server = undefined;
    const db = new Database(path.join(dataDir, 'twofa.db'), { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      results.add('integrityChecksOk');
      const both = db.prepare('select count(*) as n from pins where locked_at is not null and verified_at is not null').get() as { n: number };
      assert.equal(both.n, 0, 'no PIN both locked and verified');
      for (const [pinId, lowest] of lowestRemaining) {
        const row = db.prepare('select attempts_left from pins where id = ?').get(pinId) as { attempts_left: number };
        assert.ok(row.attempts_left <= lowest, `attempts of ${pinId} went back up: ${row.attempts_left} > ${lowest}`);
      }
      const verifiedInDb = db.prepare('select count(*) as n from pins where verified_at is not null and id in (' + pins.map(() => '?').join(',') + ')').get(...pins.map((p) => p.pinId)) as { n: number };
      assert.ok(verifiedInDb.n >= verifiedAcks.size, 'every acknowledged verification is durable');
    } finally {
      db.close();
    }
    results.check('T27', true, `${scale(1, 20)} SIGKILL(s) under verify load (${results.counters['verifiesUnderKill']} verifies): ${verifiedAcks.size} acknowledged verifications, 0 repeated, 0 re-verifiable after restart, counters monotonic, 0 PINs locked and verified`);
  });
});

/** The user waits for the code: what a restarted node owes must arrive within this of it being ready. */
const DELIVERY_DEADLINE_AFTER_RESTART_MS = 10_000;
const pgSkip = await skipUnlessPostgres();

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`kill -9 with deliveries in flight, default lease (${backend})`, { skip: backend === 'postgres' ? pgSkip : false }, () => {
    let receiver: WebhookReceiver;
    let database: TestDatabase | undefined;
    let dataDir: string;
    let server: ServerProcess | undefined;
    const secret = `whsec_${randomBytes(32).toString('base64').replace(/\+/g, 'A')}`;

    // Each process sends to its own path of the receiver, so that the first one's requests can be
    // held unanswered (deliveries in flight when it dies) while the restarted one's are answered.
    const start = async (path: string) => {
      server = await startServerProcess({
        TWOFA_DATA_DIR: dataDir, TWOFA_LOG_LEVEL: 'warn',
        ...(database ? { TWOFA_DATABASE_URL: database.url, TWOFA_DATABASE_POOL_SIZE: '5' } : {}),
        TWOFA_SMS_DSN: `webhook+http://127.0.0.1:${receiver.port}/${path}?secret=${secret}`,
      }, { timeoutMs: 120_000 });
      return createJsonClient(server.url, server.key);
    };

    before(async () => {
      receiver = await startWebhookReceiver();
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-crash-lease-'));
      database = backend === 'postgres' ? await createTestDatabase('crash_lease') : undefined;
    });
    after(async () => {
      await server?.stop();
      await receiver?.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('the restarted node delivers every acknowledged PIN within 10 s of being ready', async () => {
      const client = await start('before');
      const app = await createAppAndTemplate(client, { sendPinPerPhoneNumberLimit: '100000/1d', sendPinPerApplicationLimit: '1000000/1d' });
      const acknowledged = new Set<string>();
      let phone = 0;
      let stop = false;
      const lane = async () => {
        while (!stop) {
          try {
            const r = await client.post('/2fa/2/pin', { ...app, to: `41796${String(100_000 + (phone += 1)).padStart(6, '0')}` });
            if (r.status === 200) acknowledged.add(r.body.pinId as string);
          } catch {
            return; // the process died under us: not acknowledged, not owed
          }
        }
      };
      const lanes = Array.from({ length: 8 }, lane);
      await new Promise((resolve) => setTimeout(resolve, randomInt(300, 1000)));
      // From now on the provider takes the first process's messages and never answers: the node dies
      // holding leases on messages it is delivering, on top of those still queued.
      receiver.hold('before');
      const deadline = Date.now() + 30_000;
      while (receiver.held().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const inFlight = receiver.held().length;
      assert.ok(inFlight > 0, 'the node had deliveries in flight when it was killed');
      process.kill(server!.pid, 'SIGKILL');
      assert.equal(await server!.stop(), null, 'died of SIGKILL');
      server = undefined;
      stop = true;
      await Promise.all(lanes);
      assert.ok(acknowledged.size > 0);

      await start('after');
      const ready = Date.now();
      const undelivered = () => [...acknowledged].filter((pinId) => receiver.acceptedFor(pinId).length === 0);
      // A generous poll, bounded by the deadline the user would wait.
      while (undelivered().length > 0 && Date.now() - ready <= DELIVERY_DEADLINE_AFTER_RESTART_MS) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const late = undelivered();
      assert.deepEqual(late, [], `${late.length} of ${acknowledged.size} acknowledged PINs (${inFlight} in flight at the kill) not delivered within 10 s of the restart`);
    });
  });
}
