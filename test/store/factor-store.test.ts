// The factor store's contract (store/factor-store.ts), run on every store: the in-memory one of the
// services' unit tests, SQLite and PostgreSQL. Its race gates are what keep a TOTP code from being
// accepted twice and a guesser within five wrong codes, so each is tested with concurrent calls.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newChallengeSid, newEntitySid, newFactorSid } from '../../src/domain/factors.js';
import type { ChallengeRow, FactorRow } from '../../src/store/factor-store.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';

const T0 = 1_800_000_000_000;
const APP = 'A'.repeat(32);

function factorStoreContract(name: string, open: () => Promise<Store>, options: { skip?: string | false } = {}): void {
  describe(`factor store: ${name}`, { skip: options.skip ?? false }, () => {
    let store: Store;
    let accountId: string;
    let otherAccountId: string;
    before(async () => {
      store = await open();
      accountId = (await store.findOrCreateAccount(`f-${randomUUID()}`, randomUUID(), T0)).id;
      otherAccountId = (await store.findOrCreateAccount(`g-${randomUUID()}`, randomUUID(), T0)).id;
    });
    after(async () => { await store?.close(); });

    async function entity(identity = `user-${randomUUID().slice(0, 8)}`) {
      const { entity: e } = await store.factors.ensureEntity({ sid: newEntitySid(), accountId, applicationId: APP, identity, createdAt: T0, updatedAt: T0 });
      return e;
    }

    async function factor(entitySid: string, overrides: Partial<FactorRow> = {}): Promise<FactorRow> {
      const row: FactorRow = {
        sid: newFactorSid(), accountId, applicationId: APP, entitySid, factorType: 'totp', status: 'unverified', friendlyName: 'phone',
        config: { alg: 'sha1', time_step: 30, code_length: 6, skew: 1 }, metadata: null, secretCiphertext: 'k:cipher', registrationChallenge: null,
        credentialId: null, publicKey: null, signCount: null, transports: null, lastUsedStep: null, verificationAttempts: 0, createdAt: T0, updatedAt: T0,
        ...overrides,
      };
      await store.factors.insertFactor(row);
      return row;
    }

    async function challenge(f: FactorRow, overrides: Partial<ChallengeRow> = {}): Promise<ChallengeRow> {
      const row: ChallengeRow = {
        sid: newChallengeSid(), accountId, applicationId: APP, entitySid: f.entitySid, factorSid: f.sid, factorType: f.factorType, status: 'pending',
        respondedReason: 'none', details: null, hiddenDetails: null, metadata: null, nonce: null, attempts: 0, expiresAt: T0 + 300_000,
        respondedAt: null, createdAt: T0, updatedAt: T0, ...overrides,
      };
      await store.factors.insertChallenge(row);
      return row;
    }

    it('makes one entity per identity among concurrent first factors, and keeps it from other accounts', async () => {
      const identity = `ff483d1f-${randomUUID().slice(0, 8)}`;
      const made = await Promise.all(Array.from({ length: 8 }, () => store.factors.ensureEntity({ sid: newEntitySid(), accountId, applicationId: APP, identity, createdAt: T0, updatedAt: T0 })));
      assert.equal(made.filter((m) => m.created).length, 1);
      assert.equal(new Set(made.map((m) => m.entity.sid)).size, 1);
      assert.equal((await store.factors.getEntity(accountId, APP, identity))?.sid, made[0]!.entity.sid);
      assert.equal(await store.factors.getEntity(otherAccountId, APP, identity), undefined);
      assert.equal(await store.factors.getEntityBySid(otherAccountId, made[0]!.entity.sid), undefined);
    });

    it('deletes an entity with its factors and challenges', async () => {
      const e = await entity();
      const f = await factor(e.sid);
      const c = await challenge(f);
      assert.equal(await store.factors.deleteEntity(otherAccountId, APP, e.identity), false);
      assert.equal(await store.factors.deleteEntity(accountId, APP, e.identity), true);
      assert.equal(await store.factors.getFactor(accountId, APP, f.sid), undefined);
      assert.equal(await store.factors.getChallenge(accountId, APP, c.sid), undefined);
      assert.equal(await store.factors.deleteEntity(accountId, APP, e.identity), false);
    });

    it('counts at most five attempts of a factor\'s verification among concurrent ones, before any is compared', async () => {
      const f = await factor((await entity()).sid);
      const counted = await Promise.all(Array.from({ length: 12 }, () => store.factors.countFactorVerification(accountId, f.sid, 5, T0)));
      assert.deepEqual(counted.filter((c) => c !== undefined).map((c) => c!.verificationAttempts).sort(), [1, 2, 3, 4, 5]);
      assert.equal(await store.factors.countFactorVerification(otherAccountId, f.sid, 5, T0), undefined);
    });

    it('verifies a factor once, raising its last step; a code of that step is refused afterwards', async () => {
      const f = await factor((await entity()).sid);
      const verified = await Promise.all(Array.from({ length: 5 }, () => store.factors.verifyFactor(accountId, f.sid, T0, { use: { kind: 'totp', step: 100 } })));
      assert.equal(verified.filter(Boolean).length, 1);
      const after = await store.factors.getFactor(accountId, APP, f.sid);
      assert.equal(after?.status, 'verified');
      assert.equal(after?.lastUsedStep, 100);
      assert.equal(after?.verificationAttempts, 0);
      const c1 = await challenge(after!);
      assert.equal(await store.factors.approveChallenge(accountId, c1.sid, after!, { kind: 'totp', step: 100 }, T0 + 1), 'replayed');
      assert.equal((await store.factors.getChallenge(accountId, APP, c1.sid))?.status, 'pending', 'a refused use leaves the challenge pending');
      assert.equal(await store.factors.approveChallenge(accountId, c1.sid, after!, { kind: 'totp', step: 101 }, T0 + 1), 'approved');
      assert.equal((await store.factors.getFactor(accountId, APP, f.sid))?.lastUsedStep, 101);
    });

    it('approves a challenge once among concurrent answers with one code, and accepts that code for no other challenge', async () => {
      const f = await factor((await entity()).sid, { status: 'verified' });
      const [a, b] = [await challenge(f), await challenge(f)];
      const outcomes = await Promise.all([a, b, a, b].map((c) => store.factors.approveChallenge(accountId, c.sid, f, { kind: 'totp', step: 500 }, T0 + 1)));
      assert.equal(outcomes.filter((o) => o === 'approved').length, 1, outcomes.join());
      const statuses = await Promise.all([a, b].map(async (c) => (await store.factors.getChallenge(accountId, APP, c.sid))?.status));
      assert.deepEqual(statuses.sort(), ['approved', 'pending']);
    });

    it('counts at most five answers of a pending, unexpired challenge among concurrent ones', async () => {
      const f = await factor((await entity()).sid, { status: 'verified' });
      const c = await challenge(f);
      const counted = await Promise.all(Array.from({ length: 9 }, () => store.factors.countChallengeAttempt(accountId, c.sid, 5, T0 + 1)));
      assert.equal(counted.filter((x) => x !== undefined).length, 5);
      const expired = await challenge(f, { expiresAt: T0 });
      assert.equal(await store.factors.countChallengeAttempt(accountId, expired.sid, 5, T0), undefined);
      assert.equal(await store.factors.approveChallenge(accountId, expired.sid, f, { kind: 'totp', step: 900 }, T0), 'ended');
      assert.equal(await store.factors.denyChallenge(accountId, c.sid, T0 + 2), true);
      assert.equal(await store.factors.denyChallenge(accountId, c.sid, T0 + 2), false);
      assert.equal(await store.factors.approveChallenge(accountId, c.sid, f, { kind: 'totp', step: 901 }, T0 + 3), 'ended');
    });

    it('lists challenges by effective status (a pending one past its expiry is expired), by factor, in either order', async () => {
      const e = await entity();
      const f = await factor(e.sid, { status: 'verified' });
      const live = await challenge(f, { createdAt: T0 + 1 });
      const old = await challenge(f, { createdAt: T0, expiresAt: T0 + 10 });
      const now = T0 + 100;
      assert.deepEqual((await store.factors.listChallenges(accountId, e.sid, { status: 'expired', order: 'asc' }, now, 0, 50)).map((c) => c.sid), [old.sid]);
      assert.deepEqual((await store.factors.listChallenges(accountId, e.sid, { status: 'pending', order: 'asc' }, now, 0, 50)).map((c) => c.sid), [live.sid]);
      assert.deepEqual((await store.factors.listChallenges(accountId, e.sid, { factorSid: f.sid, order: 'desc' }, now, 0, 50)).map((c) => c.sid), [live.sid, old.sid]);
      assert.deepEqual(await store.factors.listChallenges(otherAccountId, e.sid, { order: 'asc' }, now, 0, 50), []);
    });

    it('keeps a passkey\'s credential and raises its signature counter only upward (0 stays 0 for authenticators without one)', async () => {
      const e = await entity();
      const f = await factor(e.sid, { factorType: 'passkeys', secretCiphertext: null, registrationChallenge: `reg-${randomUUID()}` });
      assert.equal((await store.factors.findFactorByRegistrationChallenge(accountId, APP, f.registrationChallenge!))?.sid, f.sid);
      const credentialId = `cred-${randomUUID()}`;
      assert.equal(await store.factors.verifyFactor(accountId, f.sid, T0, { credential: { credentialId, publicKey: 'pk', signCount: 3, transports: ['internal'] } }), true);
      const stored = await store.factors.findFactorByCredential(APP, credentialId);
      assert.equal(stored?.signCount, 3);
      assert.deepEqual(stored?.transports, ['internal']);
      assert.equal(stored?.registrationChallenge, null);
      const c = await challenge(stored!, { factorSid: null, entitySid: null, factorType: 'passkeys', nonce: `n-${randomUUID()}` });
      assert.equal((await store.factors.findChallengeByNonce(accountId, APP, c.nonce!))?.sid, c.sid);
      assert.equal(await store.factors.approveChallenge(accountId, c.sid, stored!, { kind: 'passkey', signCount: 3 }, T0 + 1), 'replayed');
      assert.equal(await store.factors.approveChallenge(accountId, c.sid, stored!, { kind: 'passkey', signCount: 4 }, T0 + 1), 'approved');
      const approved = await store.factors.getChallenge(accountId, APP, c.sid);
      assert.equal(approved?.factorSid, f.sid, 'a discoverable challenge learns its factor');
      assert.equal(approved?.entitySid, e.sid);
      const zero = await factor(e.sid, { factorType: 'passkeys', status: 'verified', secretCiphertext: null, credentialId: `z-${randomUUID()}`, signCount: 0 });
      const z = await challenge(zero, { factorType: 'passkeys' });
      assert.equal(await store.factors.approveChallenge(accountId, z.sid, zero, { kind: 'passkey', signCount: 0 }, T0 + 1), 'approved');
    });

    it('purges challenges past the cutoff and factors never verified by the deadline, through the store\'s purge too', async () => {
      const e = await entity();
      const stale = await factor(e.sid, { createdAt: T0 - 2 * 86_400_000 });
      const fresh = await factor(e.sid, { createdAt: T0 });
      const kept = await factor(e.sid, { status: 'verified', createdAt: T0 - 2 * 86_400_000 });
      const old = await challenge(kept, { expiresAt: T0 - 40 * 86_400_000 });
      const live = await challenge(kept, { expiresAt: T0 + 60_000 });
      await store.purge(T0, 30 * 86_400_000);
      assert.equal(await store.factors.getFactor(accountId, APP, stale.sid), undefined, 'unverified for more than a day');
      assert.ok(await store.factors.getFactor(accountId, APP, fresh.sid));
      assert.ok(await store.factors.getFactor(accountId, APP, kept.sid), 'a verified factor stays');
      assert.equal(await store.factors.getChallenge(accountId, APP, old.sid), undefined);
      assert.ok(await store.factors.getChallenge(accountId, APP, live.sid));
    });

    it('updates and deletes a factor within its account, and re-encrypts a secret only from the ciphertext it replaces', async () => {
      const f = await factor((await entity()).sid);
      assert.equal(await store.factors.updateFactor(otherAccountId, f.sid, { friendlyName: 'x', config: {}, metadata: null }, T0), false);
      assert.equal(await store.factors.updateFactor(accountId, f.sid, { friendlyName: 'laptop', config: { alg: 'sha1', time_step: 60, code_length: 8, skew: 0 }, metadata: { a: 'b' } }, T0 + 5), true);
      const updated = await store.factors.getFactor(accountId, APP, f.sid);
      assert.equal(updated?.friendlyName, 'laptop');
      assert.deepEqual(updated?.metadata, { a: 'b' });
      assert.equal(updated?.config['time_step'], 60);
      await store.factors.reencryptSecret(f.sid, 'k2:new', 'k:other');
      assert.equal((await store.factors.getFactor(accountId, APP, f.sid))?.secretCiphertext, 'k:cipher');
      await store.factors.reencryptSecret(f.sid, 'k2:new', 'k:cipher');
      assert.equal((await store.factors.getFactor(accountId, APP, f.sid))?.secretCiphertext, 'k2:new');
      assert.ok((await store.factors.listSecretCiphertexts()).some((s) => s.sid === f.sid && s.ciphertext === 'k2:new'));
      assert.equal(await store.factors.deleteFactor(otherAccountId, f.sid), false);
      assert.equal(await store.factors.deleteFactor(accountId, f.sid), true);
    });
  });
}

factorStoreContract('in memory', async () => new MemoryStore());
factorStoreContract('SQLite file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-factors-'));
  return openStore(`sqlite:${path.join(dir, 'twofa.db')}`);
});
const skip = await skipUnlessPostgres();
let database: TestDatabase | undefined;
factorStoreContract('PostgreSQL', async () => {
  database = await createTestDatabase('factors');
  return openStore(database.url);
}, { skip });
after(async () => { await database?.drop(); });
