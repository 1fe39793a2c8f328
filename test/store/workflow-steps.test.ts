// The race gates of workflow steps, on SQLite, on PostgreSQL with two stores (as two nodes) and in
// memory (the store of the services' unit tests): a
// due step is claimed by exactly one claimer however many claim at once, a later step of a PIN waits
// for the one before it, and a step whose claim was taken over cannot be marked sent by its former
// holder (queueResend then writes nothing). The service around them: test/http and test/e2e workflows.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { openStore } from '../../src/store/open-store.js';
import type { KyselyStore } from '../../src/store/kysely-store.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import type { DeliveryRequest, Store } from '../../src/store/store.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';

const pgSkip = await skipUnlessPostgres();
const NOW = 1_800_000_000_000;

/** A PIN under a three-step workflow; with `request`, its first message is queued with it. */
async function seedPin(store: Store, pinId: string, request?: DeliveryRequest): Promise<string> {
  const account = await store.findOrCreateAccount(`acct-${pinId}`, `A${pinId}`, NOW);
  await store.insertApplication({
    id: `APP${pinId}`, accountId: account.id, name: 'app', enabled: true, createdAt: NOW, updatedAt: NOW,
    configuration: { pinAttempts: 3, allowMultiplePinVerifications: false, pinTimeToLive: '15m', verifyPinLimit: '1/1s', sendPinPerApplicationLimit: '100/1d', sendPinPerPhoneNumberLimit: '100/1d' },
  });
  await store.workflows.schedule(account.id, pinId, [
    { step: 0, channel: 'whatsapp', state: 'sent', dueAt: NOW, reason: null },
    { step: 1, channel: 'sms', state: 'scheduled', dueAt: NOW + 1000, reason: null },
    { step: 2, channel: 'voice', state: 'scheduled', dueAt: NOW + 2000, reason: null },
  ], NOW);
  await store.createPin({
    pin: {
      id: pinId, accountId: account.id, applicationId: `APP${pinId}`, messageId: 'M', channel: 'whatsapp', destination: '41793026727',
      pinHash: 'h', pinCiphertext: 'c', attemptsLeft: 3, allowMultipleVerifications: false, createdAt: NOW, expiresAt: NOW + 900_000, deliveryStatus: request ? 'queued' : 'not_sent',
    },
    ...(request ? { outbox: { id: `first-${pinId}`, request } } : {}),
  }, [], NOW);
  await store.durable();
  return account.id;
}

function suite(name: string, open: () => Promise<[Store, Store]>, skip: false | string) {
  describe(`workflow steps (${name})`, { skip }, () => {
    let stores: [Store, Store] | undefined;
    after(async () => {
      for (const s of new Set(stores ?? [])) await s.close();
    });

    it('a due step is claimed once among concurrent claimers, and only after the step before it', async () => {
      stores = await open();
      const [a, b] = stores;
      await seedPin(a, 'P1');
      assert.deepEqual(await a.workflows.claimDue(NOW + 500, NOW + 10_000, 10), [], 'not due yet');
      // Both steps are due at NOW + 5000, but step 2 waits for step 1.
      const claims = (await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? b : a).workflows.claimDue(NOW + 5000, NOW + 10_000, 10)))).flat();
      assert.deepEqual(claims.map((c) => c.step), [1], 'exactly one claim, of step 1');
      assert.deepEqual(await a.workflows.claimDue(NOW + 5000, NOW + 10_000, 10), [], 'step 2 waits while step 1 runs');

      // Step 1's lease runs out: another claimer takes it over; its former holder can no longer mark it.
      const [takeover] = await b.workflows.claimDue(NOW + 10_001, NOW + 20_000, 10);
      assert.equal(takeover?.step, 1);
      const stale = await a.queueResend('P1', 'sms', { id: 'out-stale', request: { placeholders: {} } }, [], NOW + 10_002, claims[0]);
      assert.deepEqual(stale, { allowed: true, ended: true });
      assert.equal((await a.getPin(claims[0]!.accountId, 'P1'))?.sendCount, 1, 'the stale resend wrote nothing');
      const fresh = await b.queueResend('P1', 'sms', { id: 'out-fresh', request: { placeholders: {} } }, [], NOW + 10_002, takeover);
      assert.equal('ended' in fresh, false);
      await b.durable();
      assert.equal((await a.getPin(takeover!.accountId, 'P1'))?.sendCount, 2);
      const steps = await a.workflows.list(takeover!.accountId, 'P1');
      assert.deepEqual(steps.map((s) => s.state), ['sent', 'sent', 'scheduled']);
      // Sent 9 s late: step 2 keeps its second after step 1.
      assert.equal(steps[2]!.dueAt, NOW + 2000 + 9002);
    });

    it('a claimed step carries its PIN\'s first request (placeholders, sender), which the step re-sends with', async () => {
      const [a, b] = stores!;
      const first: DeliveryRequest = { placeholders: { name: 'Ann', code: 'X-7' }, from: 'Brand' };
      await seedPin(a, 'P4', first);
      await seedPin(a, 'P5');
      // Claims are of every PIN due (the tests before left some): these PINs' are the ones read here.
      const claims = await b.workflows.claimDue(NOW + 1000, NOW + 10_000, 100);
      assert.deepEqual(claims.find((c) => c.pinId === 'P4')?.firstRequest, first);
      assert.deepEqual(claims.find((c) => c.pinId === 'P5')?.firstRequest, { placeholders: {} }, 'no first message: no placeholders');
    });

    it('a failed delivery of the latest step makes the next one due now; a failure of an older message moves nothing', async () => {
      const [a] = stores!;
      const accountId = await seedPin(a, 'P2');
      assert.equal(await a.workflows.deliveryFailed('P2', 'sms', 'failed: x', NOW + 100), false, 'the latest step went by whatsapp');
      assert.equal(await a.workflows.deliveryFailed('P2', 'whatsapp', 'failed: x', NOW + 100), true);
      const steps = await a.workflows.list(accountId, 'P2');
      assert.deepEqual(steps.map((s) => [s.state, s.dueAt]), [['failed', NOW], ['scheduled', NOW + 100], ['scheduled', NOW + 1100]]);
      assert.equal(await a.workflows.deliveryFailed('P2', 'whatsapp', 'failed: again', NOW + 200), false, 'once');
    });

    it('advance (Vonage\'s next_workflow) makes the next scheduled step due now, keeping the delays after it, until none is left', async () => {
      const [a] = stores!;
      const accountId = await seedPin(a, 'P3');
      assert.equal(await a.workflows.advance('P3', NOW + 100), true);
      assert.deepEqual((await a.workflows.list(accountId, 'P3')).map((s) => [s.state, s.dueAt]), [['sent', NOW], ['scheduled', NOW + 100], ['scheduled', NOW + 1100]]);
      // Claims are of every PIN due (the tests before left some): this PIN's is the one run here.
      const claimOfP3 = async (now: number) => (await a.workflows.claimDue(now, NOW + 10_000, 10)).find((c) => c.pinId === 'P3');
      const claim = await claimOfP3(NOW + 100);
      assert.equal(claim?.step, 1);
      await a.workflows.finish(claim!, 'skipped', 'test', NOW + 100, 'advance');
      assert.equal(await a.workflows.advance('P3', NOW + 200), true, 'step 2 is left');
      const last = await claimOfP3(NOW + 200);
      assert.equal(last?.step, 2);
      await a.workflows.finish(last!, 'skipped', 'test', NOW + 200, 'advance');
      assert.deepEqual((await a.workflows.list(accountId, 'P3')).map((s) => s.state), ['sent', 'skipped', 'skipped']);
      assert.equal(await a.workflows.advance('P3', NOW + 300), false, 'no step is left');
    });
  });
}

let database: TestDatabase | undefined;
suite('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-wf-'));
  const store = await openStore(`sqlite:${path.join(dir, 'twofa.db')}`) as KyselyStore;
  return [store, store];
}, false);
suite('PostgreSQL, two stores', async () => {
  database = await createTestDatabase('workflow_steps');
  const a = await openStore(database.url) as KyselyStore;
  const b = await openStore(database.url, { migrate: false }) as KyselyStore;
  return [a, b];
}, pgSkip);
suite('in memory', async () => {
  const store = new MemoryStore();
  return [store, store];
}, false);
after(async () => {
  await database?.drop();
});
