// The Store conformance suite, written once and run against every store implementation
// (store-sqlite.test.ts; PostgreSQL joins with its own one-line runner).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it as test } from 'node:test';
import { DEFAULT_CONFIGURATION } from '../../src/domain/application-rules.js';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import type { ApplicationRecord, DialectStart, DialectVerification, NewPin, OutboxRecord, PinToVerify, RateLimitCheck, Store, VerifyAttempt } from '../../src/store/store.js';
import { auditEntryText, type AuditAppend } from '../../src/store/audit-store.js';
import type { RiskDecisionRecord } from '../../src/store/risk-store.js';
import { KyselyStore } from '../../src/store/kysely-store.js';
import { explain, StatementRecorder } from './query-plans.js';

const keyring = new PinKeyring('conformance-secret-0123456789-0123456789');
const T0 = 1_800_000_000_000;

export interface ConformanceOptions {
  /** Tests that do not apply to a store, by title, each with the reason (e.g. the in-memory store runs no SQL). */
  notApplicable?: Record<string, string>;
}

export function storeConformance(name: string, open: () => Promise<Store>, options: ConformanceOptions = {}): void {
  const notApplicable = new Map(Object.entries(options.notApplicable ?? {}));
  const titles = new Set<string>();
  const it = (title: string, fn: () => Promise<void>) => {
    titles.add(title);
    return test(title, notApplicable.has(title) ? { skip: notApplicable.get(title) } : {}, fn);
  };
  describe(`Store conformance: ${name}`, () => {
    // A title that names no test would skip nothing, and say nothing: each must name one.
    test('skips only tests that exist', () => {
      for (const title of notApplicable.keys()) assert.ok(titles.has(title), `no conformance test is titled '${title}'`);
    });
    let store: Store;
    let accountId: string;
    let otherAccountId: string;
    let app: ApplicationRecord;
    before(async () => {
      store = await open();
      accountId = (await store.findOrCreateAccount(`acct-${randomUUID()}`, randomUUID(), T0)).id;
      otherAccountId = (await store.findOrCreateAccount(`other-${randomUUID()}`, randomUUID(), T0)).id;
      app = { id: randomUUID().replace(/-/g, '').toUpperCase(), accountId, name: 'app', enabled: true, configuration: { ...DEFAULT_CONFIGURATION }, createdAt: T0, updatedAt: T0 };
      await store.insertApplication(app);
      await store.insertMessageTemplate({
        kind: 'sms_voice', id: `MSG-${app.id}`, accountId, applicationId: app.id, pinType: 'NUMERIC', pinLength: 6, messageText: 'code {{pin}}',
        senderId: null, language: 'en', voiceName: null, repeatDtmf: null, speechRate: null, regional: null, createdAt: T0, updatedAt: T0,
      });
    });
    after(async () => { await store.close(); });

    /** A verification as the service makes it: its audit entry appended, in its transaction where the store does so. */
    async function verifyAttempt(pin: PinToVerify, now: number, limits: RateLimitCheck[], matches: (pinHash: string) => boolean, dialect?: DialectVerification): Promise<VerifyAttempt> {
      const auditOf = (attempt: VerifyAttempt): AuditAppend => ({
        entry: { accountId: pin.accountId, at: now, event: 'pin.verify', pinId: pin.id, reason: attempt.kind },
        seal: (unsealed) => keyring.sealAudit(auditEntryText(unsealed)),
      });
      const attempt = await store.verifyPinAttempt(pin, now, limits, matches, auditOf, dialect);
      if (!attempt.audited) await store.audit.append(auditOf(attempt).entry, auditOf(attempt).seal);
      return attempt;
    }

    function newPin(overrides: Partial<NewPin['pin']> = {}, withOutbox = true): NewPin {
      const id = randomUUID().replace(/-/g, '').toUpperCase();
      return {
        pin: {
          id, accountId, applicationId: app.id, messageId: `MSG-${app.id}`, channel: 'sms', destination: '41793026727',
          pinHash: keyring.hashPin(id, '123456'), pinCiphertext: keyring.encryptPin(id, '123456'), attemptsLeft: 3,
          allowMultipleVerifications: false, createdAt: T0, expiresAt: T0 + 60_000, deliveryStatus: 'queued', ...overrides,
        },
        ...(withOutbox ? { outbox: { id: randomUUID(), request: { placeholders: { name: 'Ann' } } } } : {}),
      };
    }

    it('finds or creates accounts by name, idempotently', async () => {
      const again = await store.findOrCreateAccount(`acct-x-${accountId}`, randomUUID(), T0);
      const same = await store.findOrCreateAccount(again.name, randomUUID(), T0 + 1);
      assert.equal(same.id, again.id);
    });

    it('stores API keys by hash, lists them and revokes by id, never by prefix', async () => {
      const id = randomUUID();
      await store.insertApiKey({ id, accountId, keyHash: `hash-${id}`, keyPrefix: `pfx-${id.slice(0, 6)}`, scopes: ['2fa:manage'], label: 'l', createdAt: T0 });
      const found = await store.findApiKeyByHash(`hash-${id}`);
      assert.equal(found?.accountId, accountId);
      assert.deepEqual(found?.scopes, ['2fa:manage']);
      assert.equal(await store.revokeApiKey(`pfx-${id.slice(0, 6)}`, T0 + 5), false, 'a prefix revokes nothing');
      assert.equal(await store.revokeApiKey(id, T0 + 5), true);
      assert.equal((await store.findApiKeyByHash(`hash-${id}`))?.revokedAt, T0 + 5);
      assert.equal(await store.revokeApiKey(id, T0 + 6), false, 'an already revoked key is not revoked again');
    });

    it('takes the same key inserted twice at once (nodes starting together with one bootstrap key) as one key', async () => {
      const keyHash = `hash-${randomUUID()}`;
      await Promise.all(Array.from({ length: 3 }, () => store.insertApiKey({ id: randomUUID(), accountId, keyHash, keyPrefix: 'boot', scopes: ['2fa:manage'], label: null, createdAt: T0 })));
      assert.equal((await store.listApiKeys()).filter((k) => k.keyPrefix === 'boot' && k.accountId === accountId).length, 1);
      assert.equal((await store.findApiKeyByHash(keyHash))?.accountId, accountId);
    });

    it('keeps applications and templates inside their account', async () => {
      assert.equal((await store.getApplication(accountId, app.id))?.name, 'app');
      assert.equal(await store.getApplication(otherAccountId, app.id), undefined);
      assert.equal((await store.listApplications(otherAccountId)).length, 0);
      assert.equal(await store.getMessageTemplate(otherAccountId, app.id, `MSG-${app.id}`), undefined);
      const updated = { ...app, name: 'renamed', configuration: { ...app.configuration, pinAttempts: 4 }, updatedAt: T0 + 1 };
      await store.updateApplication(updated);
      assert.deepEqual(await store.getApplication(accountId, app.id), updated);
      app = updated;
    });

    it('numbers email templates and refuses other accounts', async () => {
      const t = await store.insertEmailTemplate(accountId, { name: 'n', from: null, subject: 's {{pin}}', html: null, text: 't' }, T0);
      assert.equal(typeof t.id, 'number');
      assert.equal(await store.getEmailTemplate(otherAccountId, t.id), undefined);
      assert.equal((await store.updateEmailTemplate(accountId, t.id, { name: 'n2', from: 'a@b.co', subject: 's', html: '<p>', text: null }, T0 + 1))?.name, 'n2');
      assert.equal(await store.deleteEmailTemplate(otherAccountId, t.id), false);
      assert.equal(await store.deleteEmailTemplate(accountId, t.id), true);
    });

    it('writes a PIN with its outbox row, and the worker can claim, lease and complete it once', async () => {
      const input = newPin();
      assert.deepEqual(await store.createPin(input, [], T0), { allowed: true });
      const claimed = await store.claimOutbox(T0, T0 + 1000, 100);
      const mine = claimed.filter((c) => c.pinId === input.pin.id);
      assert.equal(mine.length, 1);
      assert.deepEqual(mine[0]?.request, { placeholders: { name: 'Ann' } });
      assert.equal((await store.claimOutbox(T0 + 10, T0 + 1000, 100)).filter((c) => c.pinId === input.pin.id).length, 0, 'leased rows are not claimed twice');
      await store.completeOutbox(mine[0]!.id, input.pin.id, T0 + 20);
      const pin = await store.getPin(accountId, input.pin.id);
      assert.equal(pin?.deliveryStatus, 'sent');
      assert.equal(pin?.sentAt, T0 + 20);
      assert.equal((await store.claimOutbox(T0 + 5000, T0 + 6000, 100)).filter((c) => c.pinId === input.pin.id).length, 0, 'done rows are never claimed again');
    });

    it('answers when the oldest message still waiting for delivery was accepted', async () => {
      // Accepted before anything else this suite queues, so that it is the oldest while it waits.
      const early = T0 - 1_000_000;
      const input = newPin({ createdAt: early });
      assert.deepEqual(await store.createPin(input, [], early), { allowed: true });
      assert.equal(await store.oldestPendingOutboxAt(), early);
      const mine = (await store.claimOutbox(early, early + 1000, 1000)).find((c) => c.pinId === input.pin.id)!;
      assert.equal(await store.oldestPendingOutboxAt(), early, 'a message being delivered still waits');
      await store.completeOutbox(mine.id, input.pin.id, early + 20);
      const oldest = await store.oldestPendingOutboxAt();
      assert.ok(oldest === undefined || oldest > early, 'a delivered message no longer counts');
    });

    it('records a delivery outcome with its audit entry when it answers audited, and never one without the other', async () => {
      const entryOf = (pinId: string, event: string): AuditAppend => ({
        entry: { accountId, at: T0, event, pinId, actor: 'delivery', reason: 'smpp' },
        seal: (unsealed) => keyring.sealAudit(auditEntryText(unsealed)),
      });
      const claimOne = async (pinId: string) => (await store.claimOutbox(T0, T0 + 1000, 1000)).find((c) => c.pinId === pinId)!;
      const eventsOf = async (pinId: string) => (await store.audit.list(accountId, { pinId }, 10)).map((e) => e.event);
      const sent = newPin();
      await store.createPin(sent, [], T0);
      const sentRecord = await store.completeOutbox((await claimOne(sent.pin.id)).id, sent.pin.id, T0 + 1, { transport: 'smpp' }, entryOf(sent.pin.id, 'delivery.sent'));
      assert.deepEqual(await eventsOf(sent.pin.id), sentRecord.audited ? ['delivery.sent'] : [], 'the entry is written exactly when the store says so');
      const failed = newPin();
      await store.createPin(failed, [], T0);
      const failedRecord = await store.failOutbox((await claimOne(failed.pin.id)).id, failed.pin.id, 'rejected', T0 + 1, 'failed', entryOf(failed.pin.id, 'delivery.failed'));
      assert.deepEqual(await eventsOf(failed.pin.id), failedRecord.audited ? ['delivery.failed'] : []);
      assert.equal(sentRecord.audited, failedRecord.audited);
      if (store instanceof KyselyStore) assert.equal(sentRecord.audited, store.dialect === 'sqlite', 'SQLite appends the entry in the outcome\'s transaction');

      // An entry that cannot be sealed: a store that appends it records nothing of the outcome either.
      const unsealable = newPin();
      await store.createPin(unsealable, [], T0);
      const item = await claimOne(unsealable.pin.id);
      const outcome = await store.completeOutbox(item.id, unsealable.pin.id, T0 + 1, { transport: 'smpp' }, {
        entry: entryOf(unsealable.pin.id, 'delivery.sent').entry, seal: () => { throw new Error('no audit key'); },
      }).then((r) => r, (err: unknown) => err);
      if (outcome instanceof Error) {
        assert.equal((await store.getPin(accountId, unsealable.pin.id))?.deliveryStatus, 'queued', 'not sent without its entry');
        assert.deepEqual(await eventsOf(unsealable.pin.id), []);
        assert.equal((await store.claimOutbox(T0 + 1001, T0 + 2000, 1000)).filter((c) => c.pinId === unsealable.pin.id).length, 1, 'delivered again once its lease ends');
      } else {
        assert.deepEqual(outcome, { audited: false });
      }

      // Outcomes recorded together: the one that cannot be written takes none of the others with it.
      const together = [newPin(), newPin(), newPin()];
      for (const input of together) await store.createPin(input, [], T0);
      const claimedTogether = await store.claimOutbox(T0, T0 + 1000, 1000);
      const items = together.map((input) => claimedTogether.find((c) => c.pinId === input.pin.id));
      const results = await Promise.all(together.map((input, i) => store.completeOutbox(items[i]!.id, input.pin.id, T0 + 1, { transport: 'smpp' }, i === 1
        ? { entry: entryOf(input.pin.id, 'delivery.sent').entry, seal: () => { throw new Error('no audit key'); } }
        : entryOf(input.pin.id, 'delivery.sent')).then((r) => r, (err: unknown) => err)));
      for (const i of [0, 2]) {
        assert.ok(!(results[i] instanceof Error), `outcome ${i} recorded`);
        assert.equal((await store.getPin(accountId, together[i]!.pin.id))?.deliveryStatus, 'sent');
      }
      if (results[1] instanceof Error) assert.equal((await store.getPin(accountId, together[1]!.pin.id))?.deliveryStatus, 'queued');
    });

    it('leases no more than a claim hands over: first messages and resends claimed max at a time all come out before their leases end', async () => {
      const firsts = [newPin(), newPin()];
      const resent = [newPin(), newPin()];
      for (const input of resent) await store.createPin(input, [], T0);
      const sent = (await store.claimOutbox(T0, T0 + 10, 1000)).filter((c) => resent.some((i) => i.pin.id === c.pinId));
      assert.equal(sent.length, 2);
      for (const message of sent) {
        await store.completeOutbox(message.id, message.pinId, T0);
        await store.queueResend(message.pinId, 'sms', { id: randomUUID(), request: { placeholders: {} } }, [], T0 + 1);
      }
      for (const input of firsts) await store.createPin(input, [], T0);
      const mine = new Set([...firsts, ...resent].map((i) => i.pin.id));
      const handed: OutboxRecord[] = [];
      for (let claim = 0; claim < 1000; claim++) {
        const batch = await store.claimOutbox(T0 + 100, T0 + 500, 2);
        assert.ok(batch.length <= 2);
        if (batch.length === 0) break;
        handed.push(...batch.filter((c) => mine.has(c.pinId)));
      }
      assert.deepEqual(handed.map((c) => c.pinId).sort(), [...mine].sort(), 'each of the four handed over once, none held back by a lease nobody was given');
      assert.ok(handed.every((c) => c.attempts === 1), 'a claim given back does not count as an attempt');
      for (const c of handed) await store.completeOutbox(c.id, c.pinId, T0 + 101);
    });

    /** A PIN's first message (on its row) and a resend (an outbox row), both claimed by `holder` at T0 + 2 until `leaseUntil`. */
    async function twoMessagesClaimedBy(holder: string, leaseUntil: number) {
      const first = newPin();
      const later = newPin();
      await store.createPin(later, [], T0);
      const [sent] = (await store.claimOutbox(T0, T0 + 1000, 1000)).filter((c) => c.pinId === later.pin.id);
      await store.completeOutbox(sent!.id, later.pin.id, T0);
      await store.queueResend(later.pin.id, 'sms', { id: randomUUID(), request: { placeholders: {} } }, [], T0 + 1);
      await store.createPin(first, [], T0 + 1);
      const ours = <T extends { pinId: string }>(items: T[]) => items.filter((c) => c.pinId === first.pin.id || c.pinId === later.pin.id);
      const claimed = ours(await store.claimOutbox(T0 + 2, leaseUntil, 1000, holder));
      assert.equal(claimed.length, 2);
      return { claimed, ours };
    }

    it('records who claimed a message: only that claim\'s holder renews its lease, and a restarting node takes back what it held', async () => {
      const [a, b] = [`node-a-${randomUUID()}`, `node-b-${randomUUID()}`];
      const { claimed, ours } = await twoMessagesClaimedBy(a, T0 + 1000);
      const held = claimed.map(({ id, pinId, attempts }) => ({ id, pinId, attempts }));

      assert.equal(await store.renewOutbox(held, b, T0 + 10_000), 0, 'another node cannot renew');
      assert.equal(await store.renewOutbox(held.map((m) => ({ ...m, attempts: m.attempts + 1 })), a, T0 + 10_000), 0, 'nor a claim that is not this one');
      assert.equal(await store.renewOutbox(held, a, T0 + 10_000), 2);
      assert.deepEqual(ours(await store.claimOutbox(T0 + 5000, T0 + 6000, 1000, b)), [], 'a renewed lease holds past its first end');
      await store.releaseHeldOutbox(b, T0 + 5000);
      assert.deepEqual(ours(await store.claimOutbox(T0 + 5000, T0 + 6000, 1000, b)), [], 'a node takes back only what it holds');

      // (Claims take whatever is due, other tests' messages too: counts are at least ours.)
      assert.ok(await store.releaseHeldOutbox(a, T0 + 5000) >= 2, 'node a, restarting, takes back both');
      const taken = ours(await store.claimOutbox(T0 + 5000, T0 + 15_000, 1000, b));
      assert.deepEqual(taken.map((c) => c.attempts).sort(), held.map((m) => m.attempts + 1).sort());
      assert.equal(await store.renewOutbox(held, a, T0 + 20_000), 0, 'the claim taken over is not renewed by its old holder');
      assert.equal(await store.renewOutbox(taken.map(({ id, pinId, attempts }) => ({ id, pinId, attempts })), b, T0 + 20_000), 2);
      await store.retryOutbox(taken[0]!.id, taken[0]!.pinId, T0 + 5500, 'busy', T0 + 5001);
      assert.equal(await store.renewOutbox(taken.map(({ id, pinId, attempts }) => ({ id, pinId, attempts })), b, T0 + 20_000), 1, 'a retry gives its lease back for good');
      assert.equal(ours(await store.claimOutbox(T0 + 5500, T0 + 15_000, 1000, b)).length, 1, 'and is claimed when due');
      for (const item of taken) await store.completeOutbox(item.id, item.pinId, T0 + 5001);
      assert.equal(await store.renewOutbox(taken.map(({ id, pinId, attempts }) => ({ id, pinId, attempts })), b, T0 + 30_000), 0, 'nothing done is renewed');
      await store.releaseHeldOutbox(b, T0 + 5002);
      assert.deepEqual(ours(await store.claimOutbox(T0 + 5003, T0 + 6000, 1000, a)), [], 'nothing done is given back');
    });

    it('gives back what a node holds but is not delivering: the messages it keeps stay leased to it', async () => {
      const [a, b] = [`node-a-${randomUUID()}`, `node-b-${randomUUID()}`];
      const { claimed, ours } = await twoMessagesClaimedBy(a, T0 + 60_000);
      // Either one in flight (a PIN's first message, then a resend): only the other is given back.
      const [one, other] = [claimed[0]!, claimed[1]!];
      for (const [delivering, lost] of [[one, other], [other, one]] as const) {
        assert.equal(await store.releaseHeldOutbox(a, T0 + 3, [{ id: delivering.id, pinId: delivering.pinId }]), 1);
        const retaken = ours(await store.claimOutbox(T0 + 3, T0 + 60_000, 1000, a));
        assert.deepEqual(retaken.map((c) => c.id), [lost.id], 'the message not kept is claimable at once');
        assert.deepEqual(ours(await store.claimOutbox(T0 + 3, T0 + 60_000, 1000, b)), [], 'the kept one stays leased');
      }
      for (const c of claimed) await store.completeOutbox(c.id, c.pinId, T0 + 4);
    });

    it('counts verification attempts atomically and never below zero', async () => {
      const input = newPin({}, false);
      await store.createPin(input, [], T0);
      const results = await Promise.all(Array.from({ length: 10 }, () => verifyAttempt(input.pin, T0 + 1, [], () => false)));
      const counted = results.flatMap((r) => (r.kind === 'counted' ? [r.pin] : []));
      assert.equal(counted.length, 3);
      assert.deepEqual(counted.map((p) => p.attemptsLeft).sort(), [0, 1, 2]);
      assert.equal((await verifyAttempt(input.pin, T0 + 2, [], () => true)).kind, 'ended');
    });

    it('counts no attempt on an expired PIN', async () => {
      const input = newPin({}, false);
      await store.createPin(input, [], T0);
      const attempt = await verifyAttempt(input.pin, T0 + 60_000, [], () => true);
      assert.deepEqual(attempt.kind === 'ended' && attempt.pin?.attemptsLeft, 3);
    });

    it('records every verification in the audit chain: one entry per request, whatever its outcome, in chain order', async () => {
      const input = newPin({ attemptsLeft: 1 }, false);
      await store.createPin(input, [], T0);
      const limit = [{ key: `verify:${randomUUID()}`, limit: 2, windowMs: 60_000 }];
      const kinds = [];
      for (let i = 0; i < 3; i++) kinds.push((await verifyAttempt(input.pin, T0 + 1 + i, limit, () => false)).kind);
      assert.deepEqual(kinds, ['counted', 'ended', 'refused']);
      const entries = await store.audit.list(accountId, { pinId: input.pin.id }, 10);
      assert.deepEqual(entries.map((e) => e.reason), kinds);
      const chain = await store.audit.list(accountId, {}, 100_000);
      for (const [i, entry] of chain.entries()) {
        assert.equal(entry.seq, i + 1, 'no gap');
        assert.equal(entry.prevHash, i === 0 ? '' : chain[i - 1]!.hash, 'each entry follows the one before');
        assert.ok(keyring.checkAuditSeal(entry.hash, auditEntryText(entry)), 'sealed');
      }
    });

    it('lets exactly one request verify a single-use PIN, and erases its ciphertext', async () => {
      const input = newPin({}, false);
      await store.createPin(input, [], T0);
      const results = await Promise.all(Array.from({ length: 10 }, () => verifyAttempt(input.pin, T0 + 1, [], () => true)));
      assert.equal(results.filter((r) => r.kind === 'counted' && r.verified).length, 1);
      const pin = await store.getPin(accountId, input.pin.id);
      assert.equal(pin?.verifiedAt, T0 + 1);
      assert.equal(pin?.pinCiphertext, null);
      assert.equal(pin?.attemptsLeft, 2, 'the losers spent no attempt');
      assert.equal((await verifyAttempt(input.pin, T0 + 2, [], () => true)).kind, 'ended', 'a verified single-use PIN takes no more attempts');
    });

    it('verifies in one step: limit first, one winner among concurrent right PINs, a lock after the last wrong one', async () => {
      const right = newPin({ attemptsLeft: 5 }, false);
      await store.createPin(right, [], T0);
      const hashOf = (candidate: string) => (pinHash: string) => keyring.matches(pinHash, right.pin.id, candidate);
      const results = await Promise.all(Array.from({ length: 4 }, () => verifyAttempt(right.pin, T0 + 1, [], hashOf('123456'))));
      assert.equal(results.filter((r) => r.kind === 'counted' && r.verified).length, 1, 'exactly one request verifies');
      assert.equal(results.filter((r) => r.kind === 'ended').length, 3, 'the others find it verified, no attempt counted');
      assert.equal((await store.getPin(accountId, right.pin.id))?.pinCiphertext, null);

      const wrong = newPin({ attemptsLeft: 2 }, false);
      await store.createPin(wrong, [], T0);
      const guess = (pinHash: string) => keyring.matches(pinHash, wrong.pin.id, '000000');
      const first = await verifyAttempt(wrong.pin, T0 + 1, [], guess);
      assert.deepEqual(first.kind === 'counted' && [first.matched, first.pin.attemptsLeft], [false, 1]);
      await verifyAttempt(wrong.pin, T0 + 2, [], guess);
      assert.equal((await store.getPin(accountId, wrong.pin.id))?.lockedAt, T0 + 2, 'locked by its last wrong attempt');

      const limited = newPin({}, false);
      await store.createPin(limited, [], T0);
      const limit = [{ key: `verify:${randomUUID()}`, limit: 1, windowMs: 60_000 }];
      assert.equal((await verifyAttempt(limited.pin, T0 + 1, limit, () => false)).kind, 'counted');
      const refused = await verifyAttempt(limited.pin, T0 + 2, limit, () => false);
      assert.equal(refused.kind, 'refused');
      assert.equal((await store.getPin(accountId, limited.pin.id))?.attemptsLeft, 2, 'a refused request spends no attempt');
    });

    it('enforces rate limits over a sliding window, all-or-nothing, with a retry time', async () => {
      const key = `test:${randomUUID()}`;
      const other = `test:${randomUUID()}`;
      const limits = [{ key, limit: 2, windowMs: 60_000 }, { key: other, limit: 10, windowMs: 60_000 }];
      assert.equal((await store.consumeRateLimits(limits, T0)).allowed, true);
      assert.equal((await store.consumeRateLimits(limits, T0 + 1000)).allowed, true);
      const refused = await store.consumeRateLimits(limits, T0 + 2000);
      assert.equal(refused.allowed, false);
      if (!refused.allowed) {
        assert.equal(refused.key, key);
        assert.ok(refused.retryAfterMs > 50_000 && refused.retryAfterMs <= 60_000, `retry after ${refused.retryAfterMs}`);
      }
      // The refused request consumed nothing on the other key: 8 more fit there.
      for (let i = 0; i < 8; i++) assert.equal((await store.consumeRateLimits([limits[1]!], T0 + 3000)).allowed, true);
      assert.equal((await store.consumeRateLimits([limits[1]!], T0 + 3000)).allowed, false);
      assert.equal((await store.consumeRateLimits(limits, T0 + 62_000)).allowed, true, 'allowed again once the window has passed');
    });

    it('says when each limit admits its next hit (the hit that takes the last slot included), and peeks without counting', async () => {
      const key = `next:${randomUUID()}`;
      const roomy = `next:${randomUUID()}`;
      const limits = [{ key, limit: 2, windowMs: 60_000 }, { key: roomy, limit: 10, windowMs: 60_000 }];
      assert.equal(await store.peekRateLimit(limits[0]!, T0), T0, 'an empty window has room now');
      assert.deepEqual(await store.consumeRateLimits(limits, T0), { allowed: true, nextAllowedAt: { [key]: T0, [roomy]: T0 } });
      assert.deepEqual(await store.consumeRateLimits(limits, T0 + 1000), { allowed: true, nextAllowedAt: { [key]: T0 + 60_000, [roomy]: T0 + 1000 } },
        'the second hit fills the window: the next fits when the first leaves it');
      assert.equal(await store.peekRateLimit(limits[0]!, T0 + 2000), T0 + 60_000);
      assert.equal(await store.peekRateLimit(limits[0]!, T0 + 2000), T0 + 60_000, 'peeking counts nothing');
      const refused = await store.consumeRateLimits([limits[0]!], T0 + 2000);
      assert.deepEqual(refused, { allowed: false, key, retryAfterMs: 58_000 }, 'the refusal agrees');
      assert.equal(await store.peekRateLimit(limits[0]!, T0 + 60_000), T0 + 60_000);
      assert.equal((await store.consumeRateLimits([limits[0]!], T0 + 60_000)).allowed, true);
    });

    it('lets no concurrency exceed a rate limit', async () => {
      const key = `race:${randomUUID()}`;
      const outcomes = await Promise.all(Array.from({ length: 30 }, () => store.consumeRateLimits([{ key, limit: 4, windowMs: 60_000 }], T0)));
      assert.equal(outcomes.filter((o) => o.allowed).length, 4);
    });

    it('queues resends only for live PINs and within limits', async () => {
      const input = newPin({}, false);
      await store.createPin(input, [], T0);
      const key = `resend:${randomUUID()}`;
      const first = await store.queueResend(input.pin.id, 'voice', { id: randomUUID(), request: { placeholders: {} } }, [{ key, limit: 1, windowMs: 60_000 }], T0 + 1);
      assert.deepEqual(first, { allowed: true, nextAllowedAt: { [key]: T0 + 1 + 60_000 } });
      const second = await store.queueResend(input.pin.id, 'voice', { id: randomUUID(), request: { placeholders: {} } }, [{ key, limit: 1, windowMs: 60_000 }], T0 + 2);
      assert.equal(second.allowed, false);
      const claimed = (await store.claimOutbox(T0 + 3, T0 + 1000, 100)).filter((c) => c.pinId === input.pin.id);
      assert.deepEqual(claimed.map((c) => c.channel), ['voice']);
      await verifyAttempt(input.pin, T0 + 4, [], () => true);
      assert.deepEqual(await store.queueResend(input.pin.id, 'sms', { id: randomUUID(), request: { placeholders: {} } }, [], T0 + 5), { allowed: true, ended: true });
    });

    it('keeps the Twilio dialect\'s rows per account, and settles a live PIN once among concurrent approves and cancels', async () => {
      await store.twilio.saveService({ applicationId: app.id, accountId, settings: { lookup_enabled: true }, smsMessageId: `MSG-${app.id}`, emailMessageId: null, deletedAt: null, createdAt: T0, updatedAt: T0 });
      await store.twilio.saveService({ applicationId: app.id, accountId, settings: { lookup_enabled: false }, smsMessageId: `MSG-${app.id}`, emailMessageId: null, deletedAt: null, createdAt: T0, updatedAt: T0 + 1 });
      assert.deepEqual((await store.twilio.getService(accountId, app.id))?.settings, { lookup_enabled: false });
      assert.equal(await store.twilio.getService(otherAccountId, app.id), undefined);

      const older = newPin({ destination: '41790000001', createdAt: T0 });
      const newer = newPin({ destination: '41790000001', createdAt: T0 + 10 });
      for (const p of [older, newer]) {
        assert.equal((await store.createPin(p, [], T0)).allowed, true);
        await store.twilio.insertVerification({ pinId: p.pin.id, accountId, status: 'pending', channel: 'sms', sendCodeAttempts: [{ time: p.pin.createdAt, channel: 'sms', attemptSid: `VL1-${p.pin.id}` }], createdAt: T0, updatedAt: T0, expiresAt: p.pin.expiresAt });
      }
      assert.equal(await store.twilio.latestPinId(accountId, app.id, '41790000001'), newer.pin.id);
      assert.equal(await store.twilio.latestPinId(otherAccountId, app.id, '41790000001'), undefined);
      await store.twilio.recordSend(accountId, newer.pin.id, { time: T0 + 15, channel: 'call', attemptSid: `VL2-${newer.pin.id}` }, T0 + 15);
      const row = await store.twilio.getVerification(accountId, newer.pin.id);
      assert.deepEqual(row?.sendCodeAttempts.map((a) => a.attemptSid), [`VL1-${newer.pin.id}`, `VL2-${newer.pin.id}`]);
      // The account's attempts, newest first, with their PINs' destination; none for another account.
      const attempts = await store.twilio.listAttempts(accountId, { destination: '41790000001' }, 0, 10);
      assert.deepEqual(attempts.map((a) => a.sid), [`VL2-${newer.pin.id}`, `VL1-${newer.pin.id}`, `VL1-${older.pin.id}`]);
      assert.equal((await store.twilio.getAttempt(accountId, `VL2-${newer.pin.id}`))?.channel, 'call');
      assert.equal(await store.twilio.getAttempt(otherAccountId, `VL2-${newer.pin.id}`), undefined);
      assert.deepEqual(await store.twilio.summarizeAttempts(accountId, { destination: '41790000001' }), { total: 3, converted: 0 });
      assert.equal(row?.channel, 'call');
      assert.equal(await store.twilio.getVerification(otherAccountId, newer.pin.id), undefined);

      // Race gate: of concurrent approves and cancels of one live PIN, exactly one settles it.
      const outcomes = await Promise.all([0, 1, 2, 3].map((i) => store.twilio.settlePin(accountId, newer.pin.id, i % 2 === 0 ? 'approved' : 'canceled', T0 + 20)));
      assert.equal(outcomes.filter(Boolean).length, 1);
      const settled = await store.getPin(accountId, newer.pin.id);
      assert.equal(settled?.pinCiphertext, null);
      assert.equal((settled?.verifiedAt !== null) !== (settled?.lockedAt !== null), true, 'approved or canceled, not both');
      assert.equal((await store.twilio.getVerification(accountId, newer.pin.id))?.status, settled?.verifiedAt !== null ? 'approved' : 'canceled');
      // An expired PIN, and another account's, are not settled.
      assert.equal(await store.twilio.settlePin(accountId, older.pin.id, 'approved', T0 + 60_000), false);
      assert.equal(await store.twilio.settlePin(otherAccountId, older.pin.id, 'approved', T0 + 20), false);
      assert.equal(await store.twilio.endVerification(accountId, older.pin.id, 'max_attempts_reached', T0 + 30), true);
      assert.equal(await store.twilio.endVerification(accountId, older.pin.id, 'approved', T0 + 31), false, 'only a pending verification ends');

      // The rows go with their PINs: by the PINs' expiry, in batches.
      const lasting = newPin({ destination: '41790000002', createdAt: T0, expiresAt: T0 + 86_400_000 });
      await store.createPin(lasting, [], T0);
      await store.twilio.insertVerification({ pinId: lasting.pin.id, accountId, status: 'pending', channel: 'sms', sendCodeAttempts: [], createdAt: T0, updatedAt: T0, expiresAt: lasting.pin.expiresAt });
      assert.deepEqual(await store.twilio.summarizeAttempts(accountId, { destination: '41790000001', converted: true }), { total: settled?.verifiedAt !== null ? 2 : 0, converted: settled?.verifiedAt !== null ? 2 : 0 });
      assert.equal(await store.twilio.purge(T0 + 60_000, { batch: 1, batchesPerRun: 10 }), 2);
      assert.equal(await store.twilio.getVerification(accountId, older.pin.id), undefined);
      assert.equal(await store.twilio.getAttempt(accountId, `VL1-${older.pin.id}`), undefined, 'attempts go with their PIN');
      assert.ok(await store.twilio.getVerification(accountId, lasting.pin.id), 'a verification whose PIN is kept is kept');
    });

    it('queues pin.verified when a Twilio verification is approved by update, pin.locked when it is canceled', async () => {
      const account = (await store.findOrCreateAccount(`twilio-events-${randomUUID()}`, randomUUID(), T0)).id;
      await subscribe(account, ['pin.verified', 'pin.locked']);
      const approved = newPin({ accountId: account, createdAt: T0 });
      const canceled = newPin({ accountId: account, createdAt: T0 });
      for (const p of [approved, canceled]) await store.createPin(p, [], T0);
      assert.equal(await store.twilio.settlePin(account, approved.pin.id, 'approved', T0 + 1), true);
      assert.equal(await store.twilio.settlePin(account, canceled.pin.id, 'canceled', T0 + 1), true);
      const events = (await store.events.claim(T0 + 2, T0 + 1000, 1000)).map((e) => `${e.pinId}:${e.type}`).sort();
      assert.deepEqual(events.filter((e) => e.startsWith(approved.pin.id) || e.startsWith(canceled.pin.id)), [`${approved.pin.id}:pin.verified`, `${canceled.pin.id}:pin.locked`].sort());
    });

    it('approves a Twilio verification, with its verification.approved event, in the transaction of the verify that verifies its PIN', async () => {
      const account = (await store.findOrCreateAccount(`twilio-approve-${randomUUID()}`, randomUUID(), T0)).id;
      await store.twilio.insertWebhook({
        sid: `YW${randomUUID().replace(/-/g, '')}`, accountId: account, applicationId: app.id, friendlyName: 'approvals', eventTypes: ['verification.approved'],
        webhookUrl: 'https://hooks.example.com/twilio', status: 'enabled', version: 'v2', createdAt: T0, updatedAt: T0,
      });
      const approval = (pinId: string): DialectVerification => ({
        approved: {
          applicationId: app.id, pinId,
          params: { type: 'verification.approved', account_sid: 'AC0', service_sid: 'VA0', verification_sid: `VE${pinId}`, channel: 'sms', to: '4179***6727', status: 'approved', date_created: new Date(T0).toISOString() },
        },
      });
      const [approved, unwritable, wrong] = [newPin({ accountId: account }), newPin({ accountId: account }), newPin({ accountId: account })];
      for (const p of [approved, unwritable, wrong]) {
        assert.equal((await store.createPin(p, [], T0)).allowed, true);
        await store.twilio.insertVerification({ pinId: p.pin.id, accountId: account, status: 'pending', channel: 'sms', sendCodeAttempts: [], createdAt: T0, updatedAt: T0, expiresAt: p.pin.expiresAt });
      }

      const verified = await verifyAttempt(approved.pin, T0 + 1, [], () => true, approval(approved.pin.id));
      assert.equal(verified.kind === 'counted' && verified.verified, true);
      assert.equal((await store.twilio.getVerification(account, approved.pin.id))?.status, 'approved');
      assert.deepEqual((await claimEvents(approved.pin.id, T0 + 2)).map((e) => e.type), ['verification.approved']);
      // A wrong code ends nothing.
      await verifyAttempt(wrong.pin, T0 + 1, [], () => false, approval(wrong.pin.id));
      assert.equal((await store.twilio.getVerification(account, wrong.pin.id))?.status, 'pending');
      assert.deepEqual(await claimEvents(wrong.pin.id, T0 + 2), []);

      // One transaction or nothing: when the verification's end cannot be written (an event that
      // cannot be serialised stands for any failure of it), the PIN is neither verified nor charged an attempt.
      const failing = approval(unwritable.pin.id);
      failing.approved.params.to = Symbol('unserialisable') as unknown as string;
      await assert.rejects(verifyAttempt(unwritable.pin, T0 + 3, [], () => true, failing));
      const untouched = await store.getPin(account, unwritable.pin.id);
      assert.equal(untouched?.verifiedAt, null);
      assert.equal(untouched?.attemptsLeft, unwritable.pin.attemptsLeft);
      assert.equal((await store.twilio.getVerification(account, unwritable.pin.id))?.status, 'pending');
      assert.deepEqual(await claimEvents(unwritable.pin.id, T0 + 4), []);
    });

    it('starts a Twilio verification, with its verification.started event, in the transaction of its PIN, or not at all', async () => {
      const account = (await store.findOrCreateAccount(`twilio-start-${randomUUID()}`, randomUUID(), T0)).id;
      await store.twilio.insertWebhook({
        sid: `YW${randomUUID().replace(/-/g, '')}`, accountId: account, applicationId: app.id, friendlyName: 'starts', eventTypes: ['verification.started'],
        webhookUrl: 'https://hooks.example.com/twilio', status: 'enabled', version: 'v2', createdAt: T0, updatedAt: T0,
      });
      const start = (input: NewPin): DialectStart => ({
        twilio: {
          pinId: input.pin.id, accountId: account, status: 'pending', channel: 'sms', sendCodeAttempts: [{ time: T0, channel: 'sms', attemptSid: `VL${input.pin.id}` }],
          createdAt: T0, updatedAt: T0, expiresAt: input.pin.expiresAt, amount: '€12.45', payee: 'Acme',
        },
        started: {
          applicationId: app.id, pinId: input.pin.id,
          params: { type: 'verification.started', account_sid: 'AC0', service_sid: 'VA0', verification_sid: `VE${input.pin.id}`, channel: 'sms', to: '4179***6727', status: 'pending', date_created: new Date(T0).toISOString() },
        },
      });
      const started = newPin({ accountId: account });
      assert.equal((await store.createPin({ ...started, dialect: start(started) }, [], T0)).allowed, true);
      const row = await store.twilio.getVerification(account, started.pin.id);
      assert.deepEqual([row?.status, row?.amount, row?.payee, row?.sendCodeAttempts.map((a) => a.attemptSid)], ['pending', '€12.45', 'Acme', [`VL${started.pin.id}`]]);
      assert.deepEqual((await claimEvents(started.pin.id, T0 + 1)).map((e) => e.type), ['verification.started']);

      // A PIN its limits refuse starts nothing.
      const key = `start-${randomUUID()}`;
      await store.consumeRateLimits([{ key, limit: 1, windowMs: 60_000 }], T0);
      const refused = newPin({ accountId: account });
      assert.equal((await store.createPin({ ...refused, dialect: start(refused) }, [{ key, limit: 1, windowMs: 60_000 }], T0)).allowed, false);
      assert.equal(await store.twilio.getVerification(account, refused.pin.id), undefined);

      // One transaction or nothing: a verification that cannot be written leaves no PIN either.
      const unwritable = newPin({ accountId: account });
      const failing = start(unwritable);
      failing.started!.params.channel = Symbol('unserialisable') as unknown as string;
      await assert.rejects(store.createPin({ ...unwritable, dialect: failing }, [], T0));
      assert.equal(await store.getPin(account, unwritable.pin.id), undefined);
      assert.equal(await store.twilio.getVerification(account, unwritable.pin.id), undefined);
      assert.deepEqual(await claimEvents(unwritable.pin.id, T0 + 2), []);
    });

    it('keeps a Service\'s Rate Limit names unique under concurrent creates, and deletes a limit with its Buckets', async () => {
      const limit = (sid: string) => ({ sid, accountId, applicationId: app.id, uniqueName: 'end_user_ip', description: null, createdAt: T0, updatedAt: T0 });
      const created = await Promise.all([1, 2, 3].map((i) => store.twilio.insertRateLimit(limit(`RK${String(i).repeat(32)}`))));
      assert.equal(created.filter(Boolean).length, 1, 'one name, one limit');
      const [kept] = await store.twilio.listRateLimits(accountId, app.id);
      assert.ok(kept);
      assert.equal(await store.twilio.getRateLimit(otherAccountId, app.id, kept.sid), undefined);
      await store.twilio.insertBucket({ sid: `BL${'1'.repeat(32)}`, rateLimitSid: kept.sid, accountId, applicationId: app.id, max: 5, interval: 60, createdAt: T0, updatedAt: T0 });
      assert.equal((await store.twilio.listBuckets(accountId, [kept.sid])).length, 1);
      assert.deepEqual(await store.twilio.listBuckets(otherAccountId, [kept.sid]), []);
      assert.equal(await store.twilio.deleteRateLimit(otherAccountId, app.id, kept.sid), false);
      assert.equal(await store.twilio.deleteRateLimit(accountId, app.id, kept.sid), true);
      assert.deepEqual(await store.twilio.listBuckets(accountId, [kept.sid]), [], 'its buckets went with it');
    });

    it('lists verifications newest first with filters', async () => {
      const destination = `4179${Math.floor(Number(`0x${randomUUID().slice(0, 6)}`) % 10_000_000).toString().padStart(7, '0')}`;
      const older = newPin({ destination, createdAt: T0 }, false);
      const newer = newPin({ destination, createdAt: T0 + 10 }, false);
      await store.createPin(older, [], T0);
      await store.createPin(newer, [], T0 + 10);
      await verifyAttempt(older.pin, T0 + 20, [], () => true);
      const all = await store.listVerifications(accountId, app.id, destination, {}, 10);
      assert.deepEqual(all.map((r) => r.verifiedAt), [null, T0 + 20]);
      assert.equal((await store.listVerifications(accountId, app.id, destination, { verified: true }, 10)).length, 1);
      assert.equal((await store.listVerifications(accountId, app.id, destination, { sent: true }, 10)).length, 0);
      assert.equal((await store.listVerifications(otherAccountId, app.id, destination, {}, 10)).length, 0);
    });

    it('records which transport accepted a message, matches its receipt, and keeps the history', async () => {
      const input = newPin();
      await store.createPin(input, [], T0);
      const [item] = (await store.claimOutbox(T0, T0 + 1000, 1000)).filter((c) => c.pinId === input.pin.id);
      await store.retryOutbox(item!.id, input.pin.id, T0 + 5, 'timeout', T0 + 1);
      await store.completeOutbox(item!.id, input.pin.id, T0 + 10, { transport: 'smpp', providerMessageId: `smsc-${input.pin.id}` });
      let pin = await store.getPin(accountId, input.pin.id);
      assert.equal(pin?.deliveryStatus, 'sent');
      assert.equal(pin?.deliveryTransport, 'smpp');
      assert.equal(pin?.providerMessageId, `smsc-${input.pin.id}`);
      assert.equal(await store.recordReceipt({ transport: 'twilio', providerMessageId: `smsc-${input.pin.id}`, status: 'delivered', at: T0 + 20 }), undefined, 'another transport\'s id does not match');
      assert.deepEqual(await store.recordReceipt({ transport: 'smpp', providerMessageId: `smsc-${input.pin.id}`, status: 'delivered', at: T0 + 20 }), { pinId: input.pin.id, accountId, requeued: false });
      pin = await store.getPin(accountId, input.pin.id);
      assert.equal(pin?.deliveryStatus, 'delivered');
      assert.equal(pin?.deliveredAt, T0 + 20);
      const history = await store.listDeliveryEvents(accountId, input.pin.id);
      assert.deepEqual(history.map((e) => e.event), ['queued', 'retried', 'sent', 'delivered']);
      assert.equal(history[1]?.error, 'timeout');
      assert.deepEqual(await store.listDeliveryEvents(otherAccountId, input.pin.id), []);
    });

    it('purges: erases expired ciphertexts, deletes PINs past retention, cancels their undelivered messages', async () => {
      const expiring = newPin({ createdAt: T0, expiresAt: T0 + 1000 });
      await store.createPin(expiring, [], T0);
      await store.purge(T0 + 2000, 10_000);
      const erased = await store.getPin(accountId, expiring.pin.id);
      assert.equal(erased?.pinCiphertext, null);
      assert.equal((await store.claimOutbox(T0 + 2001, T0 + 3000, 1000)).filter((c) => c.pinId === expiring.pin.id).length, 0);
      await store.purge(T0 + 20_000, 10_000);
      assert.equal(await store.getPin(accountId, expiring.pin.id), undefined);
    });

    async function subscribe(account: string, events: string[], enabled = true): Promise<string> {
      const id = randomUUID();
      await store.events.insertSubscription({ id, accountId: account, url: 'https://hooks.example.com/e', events, secretCiphertext: 'k:x', enabled, createdAt: T0, updatedAt: T0 });
      return id;
    }

    async function claimEvents(pinId: string, now: number) {
      return (await store.events.claim(now, now + 1000, 1000)).filter((e) => e.pinId === pinId);
    }

    it('queues PIN events with the change that causes them, for enabled subscriptions to that type only', async () => {
      const account = (await store.findOrCreateAccount(`events-${randomUUID()}`, randomUUID(), T0)).id;
      const all = await subscribe(account, ['*']);
      const sentOnly = await subscribe(account, ['pin.sent']);
      await subscribe(account, ['*'], false);
      await subscribe(otherAccountId, ['*']);
      const input = newPin({ accountId: account, destination: '41793026727' });
      await store.createPin(input, [], T0);
      assert.deepEqual(await claimEvents(input.pin.id, T0), [], 'queued is not an event');
      const [item] = (await store.claimOutbox(T0, T0 + 1000, 1000)).filter((c) => c.pinId === input.pin.id);
      await store.completeOutbox(item!.id, input.pin.id, T0 + 10, { transport: 'smpp', providerMessageId: `ev-${input.pin.id}` });
      await store.recordReceipt({ transport: 'smpp', providerMessageId: `ev-${input.pin.id}`, status: 'delivered', at: T0 + 20 });
      const won = await verifyAttempt(input.pin, T0 + 30, [], () => true);
      assert.equal(won.kind === 'counted' && won.verified, true);
      assert.equal((await verifyAttempt(input.pin, T0 + 31, [], () => true)).kind, 'ended', 'a second right PIN queues nothing');

      const events = await claimEvents(input.pin.id, T0 + 40);
      const seen = events.map((e) => `${e.subscriptionId === all ? 'all' : e.subscriptionId === sentOnly ? 'sentOnly' : 'other'}:${e.type}`).sort();
      assert.deepEqual(seen, ['all:pin.delivered', 'all:pin.sent', 'all:pin.verified', 'sentOnly:pin.sent']);
      const verified = JSON.parse(events.find((e) => e.type === 'pin.verified')!.payload);
      assert.equal(verified.type, 'pin.verified');
      assert.equal(verified.timestamp, new Date(T0 + 30).toISOString());
      assert.deepEqual(verified.data, { pinId: input.pin.id, applicationId: app.id, messageId: `MSG-${app.id}`, channel: 'sms', to: '4179*****27', status: 'verified', attemptsRemaining: 2 });
      const sent = JSON.parse(events.find((e) => e.type === 'pin.sent')!.payload);
      assert.deepEqual(sent.data, { pinId: input.pin.id, applicationId: app.id, messageId: `MSG-${app.id}`, channel: 'sms', to: '4179*****27', status: 'sent', transport: 'smpp' });
      for (const e of events) assert.ok(!e.payload.includes('41793026727') && !e.payload.includes('123456'), 'neither the destination nor the PIN');

      // Claimed events are leased; retried ones come back when due; done and failed ones never.
      const [first, second, third] = events;
      assert.deepEqual(await claimEvents(input.pin.id, T0 + 41), []);
      await store.events.complete(first!.id, T0 + 50);
      await store.events.retry(second!.id, T0 + 5000, 'HTTP 500', T0 + 50);
      await store.events.fail(third!.id, 'HTTP 500', T0 + 50, 'failed');
      await store.events.release([events[3]!.id], T0 + 50);
      assert.deepEqual((await claimEvents(input.pin.id, T0 + 60)).map((e) => e.id), [events[3]!.id]);
      await store.events.complete(events[3]!.id, T0 + 70);
      const again = await claimEvents(input.pin.id, T0 + 5000);
      assert.deepEqual(again.map((e) => [e.id, e.attempts]), [[second!.id, 2]]);
    });

    it('records who claimed an event: only that claim\'s holder renews its lease, and a restarting node takes back what it held', async () => {
      const account = (await store.findOrCreateAccount(`events-${randomUUID()}`, randomUUID(), T0)).id;
      await subscribe(account, ['pin.sent']);
      const input = newPin({ accountId: account });
      await store.createPin(input, [], T0);
      const [item] = (await store.claimOutbox(T0, T0 + 1000, 1000)).filter((c) => c.pinId === input.pin.id);
      await store.completeOutbox(item!.id, input.pin.id, T0 + 1);
      const [a, b] = [`node-a-${randomUUID()}`, `node-b-${randomUUID()}`];
      const [event] = (await store.events.claim(T0 + 2, T0 + 1000, 1000, a)).filter((e) => e.pinId === input.pin.id);
      assert.ok(event);
      assert.equal(await store.events.renew([event], b, T0 + 10_000), 0);
      assert.equal(await store.events.renew([event], a, T0 + 10_000), 1);
      assert.deepEqual(await claimEvents(input.pin.id, T0 + 5000), [], 'a renewed lease holds');
      assert.equal(await store.events.releaseHeld(b, T0 + 5000), 0);
      assert.equal(await store.events.releaseHeld(a, T0 + 5000, [event.id]), 0, 'an event its holder is delivering is kept');
      assert.ok(await store.events.releaseHeld(a, T0 + 5000) >= 1);
      const [taken] = (await store.events.claim(T0 + 5000, T0 + 15_000, 1000, b)).filter((e) => e.pinId === input.pin.id);
      assert.equal(taken?.attempts, event.attempts + 1);
      assert.equal(await store.events.renew([event], a, T0 + 20_000), 0, 'the claim taken over is not renewed by its old holder');
      assert.equal(await store.events.renew([taken!], b, T0 + 20_000), 1);
      await store.events.retry(taken!.id, T0 + 6000, 'HTTP 500', T0 + 5001);
      assert.equal(await store.events.renew([taken!], b, T0 + 20_000), 0, 'a retry gives its lease back for good');
      const [again] = (await store.events.claim(T0 + 6000, T0 + 16_000, 1000, b)).filter((e) => e.pinId === input.pin.id);
      assert.equal(again?.id, taken!.id);
      await store.events.complete(taken!.id, T0 + 6001);
      await store.events.releaseHeld(b, T0 + 6002);
      assert.deepEqual(await claimEvents(input.pin.id, T0 + 6003), [], 'nothing done is given back');
    });

    it('queues pin.failed and pin.locked, and pin.expired from the purge (once per PIN)', async () => {
      const account = (await store.findOrCreateAccount(`events-${randomUUID()}`, randomUUID(), T0)).id;
      await subscribe(account, ['pin.failed', 'pin.locked', 'pin.expired']);
      const failing = newPin({ accountId: account });
      await store.createPin(failing, [], T0);
      const [item] = (await store.claimOutbox(T0, T0 + 1000, 1000)).filter((c) => c.pinId === failing.pin.id);
      await store.failOutbox(item!.id, failing.pin.id, 'ESME_RINVDSTADR', T0 + 1, 'failed');
      const [failed] = await claimEvents(failing.pin.id, T0 + 2);
      assert.equal(failed?.type, 'pin.failed');
      assert.deepEqual(JSON.parse(failed!.payload).data.error, 'ESME_RINVDSTADR');

      const locking = newPin({ accountId: account, attemptsLeft: 1 }, false);
      await store.createPin(locking, [], T0);
      await verifyAttempt(locking.pin, T0 + 1, [], () => false);
      assert.equal((await verifyAttempt(locking.pin, T0 + 2, [], () => false)).kind, 'ended', 'a locked PIN is locked once');
      assert.deepEqual((await claimEvents(locking.pin.id, T0 + 3)).map((e) => e.type), ['pin.locked']);

      const expiring = newPin({ accountId: account, expiresAt: T0 + 100 }, false);
      const verified = newPin({ accountId: account, expiresAt: T0 + 100 }, false);
      await store.createPin(expiring, [], T0);
      await store.createPin(verified, [], T0);
      await verifyAttempt(verified.pin, T0 + 50, [], () => true);
      await store.purge(T0 + 200, 10 * 60_000);
      await store.purge(T0 + 300, 10 * 60_000);
      assert.equal((await store.getPin(account, expiring.pin.id))?.pinCiphertext, null);
      const expired = await claimEvents(expiring.pin.id, T0 + 400);
      assert.deepEqual(expired.map((e) => e.type), ['pin.expired']);
      assert.equal(JSON.parse(expired[0]!.payload).data.status, 'expired');
      assert.deepEqual(await claimEvents(verified.pin.id, T0 + 400), [], 'a verified PIN does not expire');
    });

    // The purge tests below work long before T0, where nothing of the other tests is due yet.
    it('purges in batches: at most `batch` rows a statement and `batchesPerRun` statements a step; later runs take the rest', async () => {
      const B = T0 - 100 * 86_400_000;
      const limits = { batch: 2, batchesPerRun: 2 };
      const inputs = Array.from({ length: 5 }, (_, i) => newPin({ createdAt: B, expiresAt: B + 1000 + i }));
      for (const input of inputs) await store.createPin(input, [], B);
      const mine = async () => (await Promise.all(inputs.map((i) => store.getPin(accountId, i.pin.id)))).filter((p) => p !== undefined);
      const history = async () => (await Promise.all(inputs.map((i) => store.listDeliveryEvents(accountId, i.pin.id)))).flat().length;

      assert.equal((await store.purge(B + 10_000, 86_400_000, limits)).erased, 4);
      assert.equal((await mine()).filter((p) => p.pinCiphertext === null).length, 4);
      assert.equal((await store.purge(B + 10_001, 86_400_000, limits)).erased, 1);
      assert.equal((await mine()).filter((p) => p.pinCiphertext === null).length, 5);
      assert.deepEqual((await store.claimOutbox(B + 10_002, B + 20_000, 1000)).filter((c) => inputs.some((i) => i.pin.id === c.pinId)), [], 'every message cancelled');

      const events = await history();
      assert.ok(events >= 5);
      assert.equal((await store.purge(B + 50_000, 10_000, limits)).deleted, 4);
      assert.equal((await mine()).length, 1);
      assert.equal(await history(), events - 4);
      assert.equal((await store.purge(B + 50_001, 10_000, limits)).deleted, 1);
      assert.equal((await mine()).length, 0);
      assert.equal(await history(), Math.max(0, events - 8));
      assert.equal((await store.purge(B + 50_002, 10_000, limits)).deleted, 0);
      assert.equal(await history(), 0);
    });

    it('keeps an SMS template\'s autofill setting, and removes it', async () => {
      const id = `MSG-AF-${randomUUID()}`;
      const template = {
        kind: 'sms_voice' as const, id, accountId, applicationId: app.id, pinType: 'NUMERIC' as const, pinLength: 6, messageText: 'code {{pin}}',
        senderId: null, language: 'en', voiceName: null, repeatDtmf: null, speechRate: null, regional: null, createdAt: T0, updatedAt: T0,
        autofill: { webOtpDomain: 'example.com', androidAppHash: 'FA+9qCX9VSu' },
      };
      await store.insertMessageTemplate(template);
      assert.deepEqual(await store.getMessageTemplate(accountId, app.id, id), template);
      await store.updateMessageTemplate({ ...template, autofill: null, updatedAt: T0 + 1 });
      const { autofill, ...without } = template;
      void autofill;
      assert.deepEqual(await store.getMessageTemplate(accountId, app.id, id), { ...without, updatedAt: T0 + 1 });
    });

    it('keeps a template\'s locale texts, name and default flag; replaces the texts only if they are as expected; deletes it', async () => {
      const id = `MSG-LT-${randomUUID()}`;
      const en = { id: 'L1', channel: null, locale: 'en-us', text: 'code {{pin}}', createdAt: T0, updatedAt: T0 };
      const template = {
        kind: 'sms_voice' as const, id, accountId, applicationId: app.id, pinType: 'NUMERIC' as const, pinLength: 6, messageText: 'code {{pin}}',
        senderId: null, language: 'en', voiceName: null, repeatDtmf: null, speechRate: null, regional: null, createdAt: T0, updatedAt: T0,
        name: 'otp', isDefault: true, texts: [en],
      };
      await store.insertMessageTemplate(template);
      assert.deepEqual(await store.getMessageTemplate(accountId, app.id, id), template);
      const es = { id: 'L2', channel: 'sms' as const, locale: 'es', text: 'código {{pin}}', createdAt: T0 + 1, updatedAt: T0 + 1 };
      assert.equal(await store.replaceTemplateTexts(accountId, app.id, id, [], [es], T0 + 1), false, 'the texts are not empty');
      assert.equal(await store.replaceTemplateTexts(accountId, app.id, id, [en], [en, es], T0 + 1), true);
      assert.equal(await store.replaceTemplateTexts(accountId, app.id, id, [en], [es], T0 + 2), false, 'a stale expectation loses');
      // Another field's update keeps the texts, even from a record read before they changed.
      await store.updateMessageTemplate({ ...template, pinLength: 8, isDefault: false, updatedAt: T0 + 3 });
      const { isDefault, ...notDefault } = template;
      void isDefault;
      assert.deepEqual(await store.getMessageTemplate(accountId, app.id, id), { ...notDefault, pinLength: 8, texts: [en, es], updatedAt: T0 + 3 });
      assert.equal(await store.replaceTemplateTexts(accountId, app.id, id, [en, es], [], T0 + 4), true);
      const emptied = await store.getMessageTemplate(accountId, app.id, id);
      assert.ok(emptied?.kind === 'sms_voice' && emptied.texts === undefined, 'no texts: absent, as on every store');
      assert.equal(await store.deleteMessageTemplate('another-account', app.id, id), false);
      assert.equal(await store.deleteMessageTemplate(accountId, app.id, id), true);
      assert.equal(await store.getMessageTemplate(accountId, app.id, id), undefined);
    });

    describe('idempotency keys', () => {
      const claim = (id: string, token: string, now: number, fingerprint = 'f1') =>
        store.idempotency.claim({ id, accountId, fingerprint, token, now, leaseUntil: now + 1000, expiresAt: now + 60_000, maxLiveKeys: 1_000 });

      it('refuses a new key of an account holding maxLiveKeys within their window, still answers the keys it holds, and frees a place as the oldest leaves its window', async () => {
        const capped = (await store.findOrCreateAccount(`idem-cap-${randomUUID()}`, randomUUID(), T0)).id;
        const claimCapped = (id: string, now: number) =>
          store.idempotency.claim({ id, accountId: capped, fingerprint: 'f1', token: randomUUID(), now, leaseUntil: now + 1000, expiresAt: now + 60_000, maxLiveKeys: 3 });
        const ids = Array.from({ length: 4 }, () => `idem-${randomUUID()}`);
        assert.deepEqual(await claimCapped(ids[0]!, T0), { kind: 'claimed' });
        assert.deepEqual(await claimCapped(ids[1]!, T0 + 10), { kind: 'claimed' });
        assert.deepEqual(await claimCapped(ids[2]!, T0 + 20), { kind: 'claimed' });
        assert.deepEqual(await claimCapped(ids[3]!, T0 + 30), { kind: 'full', retryAfterMs: 60_000 - 30 });
        assert.equal((await claimCapped(ids[0]!, T0 + 2000)).kind, 'claimed', 'a key it holds (its lease run out) is taken over as ever');
        assert.deepEqual(await claim(`idem-${randomUUID()}`, 't1', T0 + 30), { kind: 'claimed' }, 'another account is not counted');
        assert.deepEqual(await claimCapped(ids[3]!, T0 + 60_010), { kind: 'claimed' }, 'the oldest window ended: a place is free');
      });

      it('lets one request hold a key, then answers repeats with its stored answer; another request with the key is a mismatch', async () => {
        const id = `idem-${randomUUID()}`;
        assert.deepEqual(await claim(id, 't1', T0), { kind: 'claimed' });
        assert.deepEqual(await claim(id, 't2', T0 + 1), { kind: 'running' });
        assert.deepEqual(await claim(id, 't2', T0 + 1, 'f2'), { kind: 'mismatch' });
        assert.equal(await store.idempotency.complete(id, 't2', 200, 'other'), false, 'only the holder completes');
        assert.equal(await store.idempotency.complete(id, 't1', 200, 'sealed'), true);
        assert.deepEqual(await claim(id, 't3', T0 + 5000), { kind: 'answered', status: 200, answer: 'sealed' }, 'answered even after the lease');
        assert.deepEqual(await claim(id, 't3', T0 + 5000, 'f2'), { kind: 'mismatch' });
      });

      it('lets exactly one of concurrent claims hold a key', async () => {
        const id = `idem-${randomUUID()}`;
        const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => claim(id, `t${i}`, T0)));
        assert.equal(claims.filter((c) => c.kind === 'claimed').length, 1);
        assert.equal(claims.filter((c) => c.kind === 'running').length, 9);
      });

      it('a holder that died leaves a lease that runs out: a repeat takes the key over, and the old holder can no longer complete it', async () => {
        const id = `idem-${randomUUID()}`;
        await claim(id, 'dead', T0);
        assert.deepEqual(await claim(id, 'next', T0 + 999), { kind: 'running' });
        const takeovers = await Promise.all([claim(id, 'next', T0 + 1000), claim(id, 'other', T0 + 1000)]);
        assert.equal(takeovers.filter((c) => c.kind === 'claimed').length, 1, 'one repeat takes it over');
        assert.equal(await store.idempotency.complete(id, 'dead', 200, 'late'), false);
      });

      it('a released key runs again; a key past its window is claimed anew, and purged', async () => {
        const id = `idem-${randomUUID()}`;
        await claim(id, 't1', T0);
        await store.idempotency.release(id, 't1');
        assert.deepEqual(await claim(id, 't2', T0 + 1, 'f2'), { kind: 'claimed' }, 'a released key keeps nothing of its request');
        await store.idempotency.complete(id, 't2', 201, 'a');
        await store.idempotency.release(id, 't2');
        assert.equal((await claim(id, 't3', T0 + 2, 'f2')).kind, 'answered', 'an answered key is not released');
        assert.deepEqual(await claim(id, 't4', T0 + 60_001, 'f3'), { kind: 'claimed' }, 'past the window, the key is free');
        const purged = `idem-${randomUUID()}`;
        await claim(purged, 't1', T0);
        await store.idempotency.purge(T0 + 60_000, { batch: 100, batchesPerRun: 100 });
        assert.deepEqual(await claim(purged, 't2', T0 + 60_000, 'f9'), { kind: 'claimed' }, 'the purged key is gone');
        assert.equal((await claim(id, 't5', T0 + 60_002, 'f3')).kind, 'running', 'the key claimed anew was not purged');
      });
    });

    it('records a risk decision\'s price with it, and sums the blocks\' and shadow blocks\' prices per currency through the account\'s index', async () => {
      // An account of its own, long before T0: the sums are the account's and the range's only.
      const owner = (await store.findOrCreateAccount(`risk-price-${randomUUID()}`, randomUUID(), T0)).id;
      const R = T0 - 40 * 86_400_000;
      const decision = (id: string, at: number, kind: string, price: RiskDecisionRecord['price'], pinId: string | null = null): RiskDecisionRecord => ({
        id, accountId: owner, applicationId: app.id, pinId, kind: 'send', createdAt: at, destination: '447400100000', country: 'GB',
        score: 80, threshold: 70, decision: kind, mode: kind === 'shadow_block' ? 'shadow' : 'enforce', safeListed: false, signals: '[]', price,
      });
      const eur = (amountMicros: number) => ({ amountMicros, currency: 'EUR' });
      await store.risk.write({ applicationId: app.id, hits: [], decision: decision('a1', R, 'block', eur(30_000)) });
      await store.risk.write({ applicationId: app.id, hits: [], decision: decision('a2', R + 1, 'block', eur(45_000)) });
      await store.risk.write({ applicationId: app.id, hits: [], decision: decision('a3', R + 2, 'block', { amountMicros: 20_000, currency: 'GBP' }) });
      await store.risk.write({ applicationId: app.id, hits: [], decision: decision('a4', R + 3, 'block', null) });
      await store.risk.write({ applicationId: app.id, hits: [], decision: decision('a5', R + 4, 'allow', null) });
      // A shadow block is written with its PIN (PostgreSQL: by the PIN's own statement).
      const shadowPin = newPin({ accountId: owner, createdAt: R + 5, expiresAt: R + 60_000 }, false);
      await store.createPin({ ...shadowPin, risk: { applicationId: app.id, hits: [], decision: decision('a6', R + 5, 'shadow_block', eur(30_000), shadowPin.pin.id) } }, [], R + 5);
      await store.risk.write({ applicationId: app.id, hits: [], decision: decision('a7', R + 10_000, 'block', eur(1_000_000)) });

      const listed = await store.risk.listDecisions(owner, { until: R + 10_000, limit: 10 });
      assert.deepEqual(listed.map((d) => [d.id, d.price]), [
        ['a6', eur(30_000)], ['a5', null], ['a4', null], ['a3', { amountMicros: 20_000, currency: 'GBP' }], ['a2', eur(45_000)], ['a1', eur(30_000)],
      ]);
      assert.deepEqual((await store.risk.decisionOfPin(owner, shadowPin.pin.id))?.price, eur(30_000));

      const byCurrency = async (query: Parameters<Store['risk']['savings']>[1]) => (await store.risk.savings(owner, query))
        .sort((a, b) => String(a.currency).localeCompare(String(b.currency)));
      assert.deepEqual(await byCurrency({ since: R, until: R + 10_000 }), [
        { currency: 'EUR', blockedMicros: 75_000, shadowBlockedMicros: 30_000, blocks: 2, shadowBlocks: 1 },
        { currency: 'GBP', blockedMicros: 20_000, shadowBlockedMicros: 0, blocks: 1, shadowBlocks: 0 },
        { currency: null, blockedMicros: 0, shadowBlockedMicros: 0, blocks: 1, shadowBlocks: 0 },
      ].sort((a, b) => String(a.currency).localeCompare(String(b.currency))));
      assert.deepEqual(await byCurrency({ applicationId: app.id, since: R + 10_000 }), [{ currency: 'EUR', blockedMicros: 1_000_000, shadowBlockedMicros: 0, blocks: 1, shadowBlocks: 0 }]);
      assert.deepEqual(await byCurrency({ applicationId: 'another-app' }), []);
      assert.deepEqual(await store.risk.savings(otherAccountId, {}), [], 'another account sees none of it');

      if (store instanceof KyselyStore) {
        const recorder = new StatementRecorder();
        const recording = new KyselyStore(store.db.withPlugin(recorder), store.dialect, async () => undefined);
        await recording.risk.savings(owner, { since: R, until: R + 10_000 });
        const [statement] = recorder.compile(store.dialect);
        assert.ok(statement, 'the sum was recorded');
        const plan = await explain(store, statement);
        assert.deepEqual(plan.walks, [], `walks ${plan.walks.join(', ')}:\n${statement.sql}\n${plan.text}`);
        assert.match(plan.text, /risk_decisions_account_time/, `the account's index:\n${plan.text}`);
      }
    });

    it('purges through indexes: no statement of the purge walks a whole table', async () => {
      assert.ok(store instanceof KyselyStore, 'plans are checked on the Kysely store');
      const recorder = new StatementRecorder();
      const recording = new KyselyStore(store.db.withPlugin(recorder), store.dialect, async () => undefined);
      const P = T0 - 50 * 86_400_000;
      // Every step has something to do: an expired PIN of an account subscribed to pin.expired, and
      // another one with its message still pending; a batch of one makes each step run twice.
      const subscribed = (await store.findOrCreateAccount(`purge-plans-${randomUUID()}`, randomUUID(), P)).id;
      await subscribe(subscribed, ['pin.expired']);
      await store.createPin(newPin({ accountId: subscribed, createdAt: P, expiresAt: P + 1000 }, false), [], P);
      await store.createPin(newPin({ createdAt: P, expiresAt: P + 1000 }), [], P);
      const twilioPin = newPin({ createdAt: P, expiresAt: P + 1000 });
      await store.createPin(twilioPin, [], P);
      await store.twilio.insertVerification({ pinId: twilioPin.pin.id, accountId, status: 'pending', channel: 'sms', sendCodeAttempts: [], createdAt: P, updatedAt: P, expiresAt: P + 1000 });
      await recording.purge(P + 2000, 500, { batch: 1, batchesPerRun: 2 });
      await recording.security.purge(P + 2000, P);
      assert.equal(await store.twilio.getVerification(accountId, twilioPin.pin.id), undefined, 'a Twilio verification goes with its PIN');
      const statements = recorder.compile(store.dialect).filter((q) => !/^\s*insert/i.test(q.sql));
      assert.ok(statements.length >= 10, `the purge's statements were recorded (${statements.length})`);
      for (const statement of statements) {
        const plan = await explain(store, statement);
        assert.deepEqual(plan.walks, [], `walks ${plan.walks.join(', ')}:\n${statement.sql}\n${plan.text}`);
      }
    });

    it('queues the Vonage and Prelude callbacks of what committed, once each, through indexes', async () => {
      assert.ok(store instanceof KyselyStore, 'the dialects\' rows are kept by the Kysely store');
      const recorder = new StatementRecorder();
      const recording = new KyselyStore(store.db.withPlugin(recorder), store.dialect, async () => undefined);
      // Long before T0, where nothing of the other tests is due.
      const P = T0 - 60 * 86_400_000;
      await store.vonage.saveApplication({ accountId, applicationId: app.id, publicKey: 'pem', callbackUrl: 'https://hooks.example.com/v', signatureSecretCiphertext: 'k:x', updatedAt: P });
      const [vonagePin, preludePin, runningPin] = [newPin({ createdAt: P, expiresAt: P + 60_000 }), newPin({ createdAt: P, expiresAt: P + 60_000 }), newPin({ createdAt: P, expiresAt: P + 60_000 })];
      for (const p of [vonagePin, preludePin, runningPin]) await store.createPin(p, [], P);
      for (const p of [vonagePin, runningPin]) {
        await store.vonage.insertRequest({ pinId: p.pin.id, accountId, applicationId: app.id, clientRef: 'ref1', channelTimeout: 180, channels: ['sms', 'voice'], createdAt: P, expiresAt: P + 60_000 });
      }
      await store.prelude.saveVerification({ pinId: preludePin.pin.id, accountId, correlationId: 'c-1', callbackUrl: 'https://hooks.example.com/p', createdAt: P, expiresAt: P + 60_000 });
      assert.equal(await store.twilio.settlePin(accountId, vonagePin.pin.id, 'approved', P + 10), true);

      await recording.events.queueDialectCallbacks(P + 20);
      const queued = (await store.events.claim(P + 20, P + 1000, 1000)).filter((e) => [vonagePin.pin.id, preludePin.pin.id, runningPin.pin.id].includes(e.pinId));
      assert.deepEqual(queued.map((e) => `${e.pinId}:${e.type}:${e.subscriptionId}`).sort(), [
        `${vonagePin.pin.id}:vonage.event:${app.id}`, `${vonagePin.pin.id}:vonage.summary:${app.id}`, `${preludePin.pin.id}:verify.authentication:${preludePin.pin.id}`,
      ].sort(), 'the ended request and the new verification; nothing of the running request');
      const summary = JSON.parse(queued.find((e) => e.type === 'vonage.summary')!.payload) as Record<string, unknown>;
      assert.deepEqual([summary['status'], summary['client_ref'], (summary['workflow'] as Array<{ status: string }>).map((w) => w.status)], ['completed', 'ref1', ['completed', 'unused']]);
      assert.equal(await store.events.findPreludeCallbackUrl(preludePin.pin.id), 'https://hooks.example.com/p');
      assert.deepEqual(await store.events.findVonageCallbackTarget(app.id), { url: 'https://hooks.example.com/v', secretCiphertext: 'k:x' });

      for (const e of queued) await store.events.complete(e.id, P + 25);
      await store.events.queueDialectCallbacks(P + 30);
      assert.deepEqual((await store.events.claim(P + 2000, P + 3000, 1000)).filter((e) => [vonagePin.pin.id, preludePin.pin.id].includes(e.pinId)), [], 'each is queued once');
      const statements = recorder.compile(store.dialect).filter((q) => /^\s*select/i.test(q.sql));
      assert.ok(statements.length >= 2, `the sweeps' statements were recorded (${statements.length})`);
      for (const statement of statements) {
        const plan = await explain(store, statement);
        assert.deepEqual(plan.walks, [], `walks ${plan.walks.join(', ')}:\n${statement.sql}\n${plan.text}`);
      }
      await store.vonage.deleteApplication(accountId, app.id);
    });

    it('queues the message of an undelivered receipt again with the request given, only while the receipt names the PIN\'s latest message and the PIN is live', async () => {
      // The failover decision (which members to skip, whether any is left) is the caller's
      // (service/delivery-tracking.ts); the store guards the write.
      const input = newPin({ expiresAt: T0 + 60_000 });
      await store.createPin(input, [], T0);
      const deliver = async (now: number, transport: string) => {
        const [row] = (await store.claimOutbox(now, now + 1000, 1000)).filter((c) => c.pinId === input.pin.id);
        assert.ok(row, `a message is queued at ${now}`);
        await store.completeOutbox(row.id, input.pin.id, now, { transport, providerMessageId: `${transport}-${input.pin.id}` });
        return row;
      };
      const first = await deliver(T0, 'smpp');
      assert.equal(first.request.skipTransports, undefined);
      assert.deepEqual(await store.findReceiptMessage({ transport: 'smpp', providerMessageId: `smpp-${input.pin.id}` }),
        { pinId: input.pin.id, accountId, channel: 'sms', request: { placeholders: { name: 'Ann' } } });
      assert.equal(await store.findReceiptMessage({ transport: 'twilio', providerMessageId: `smpp-${input.pin.id}` }), undefined, 'another transport\'s id does not match');
      const undelivered = (transport: string, now: number, skipTransports?: string[]) =>
        store.recordReceipt({ transport, providerMessageId: `${transport}-${input.pin.id}`, status: 'undelivered', error: 'EXPIRED', at: now },
          { now, ...(skipTransports !== undefined && { requeue: { placeholders: { name: 'Ann' }, skipTransports } }) });
      assert.deepEqual(await undelivered('smpp', T0 + 10, ['smpp']), { pinId: input.pin.id, accountId, requeued: true });
      assert.equal((await undelivered('smpp', T0 + 11, ['smpp']))?.requeued, false, 'a repeated receipt queues nothing more');
      assert.equal((await store.getPin(accountId, input.pin.id))?.deliveryStatus, 'queued');
      const second = await deliver(T0 + 20, 'webhook');
      assert.deepEqual(second.request, { placeholders: { name: 'Ann' }, skipTransports: ['smpp'] });
      assert.deepEqual((await store.findReceiptMessage({ transport: 'webhook', providerMessageId: `webhook-${input.pin.id}` }))?.request, second.request, 'a later message is found with its own request');
      assert.equal((await undelivered('smpp', T0 + 25, ['smpp']))?.requeued, false, 'a late receipt of the earlier message changes nothing');
      assert.equal((await undelivered('webhook', T0 + 30, ['smpp', 'webhook']))?.requeued, true);
      const third = await deliver(T0 + 40, 'twilio');
      assert.deepEqual(third.request.skipTransports, ['smpp', 'webhook']);
      assert.equal((await undelivered('twilio', T0 + 50))?.requeued, false, 'every member was tried: the caller asks for no requeue');
      assert.equal((await store.getPin(accountId, input.pin.id))?.deliveryStatus, 'undelivered');
      assert.deepEqual((await store.listDeliveryEvents(accountId, input.pin.id)).map((e) => e.event),
        ['queued', 'sent', 'undelivered', 'queued', 'undelivered', 'sent', 'undelivered', 'undelivered', 'queued', 'sent', 'undelivered']);

      // Not once the PIN has expired, and not without the caller's decision (no failover route for the channel).
      const late = newPin({ expiresAt: T0 + 100 });
      await store.createPin(late, [], T0);
      const [row] = (await store.claimOutbox(T0, T0 + 1000, 1000)).filter((c) => c.pinId === late.pin.id);
      await store.completeOutbox(row!.id, late.pin.id, T0, { transport: 'smpp', providerMessageId: `smpp-${late.pin.id}` });
      const receipt = { transport: 'smpp', providerMessageId: `smpp-${late.pin.id}`, status: 'undelivered' as const, at: T0 + 50 };
      assert.equal((await store.recordReceipt(receipt, { now: T0 + 50 }))?.requeued, false);
      assert.equal((await store.recordReceipt(receipt, { now: T0 + 100, requeue: { placeholders: {}, skipTransports: ['smpp'] } }))?.requeued, false);
      assert.equal((await store.claimOutbox(T0 + 200, T0 + 1000, 1000)).filter((c) => c.pinId === late.pin.id).length, 0);
    });

    it('does not queue the message of an undelivered receipt again once the PIN is verified, or while a resend is queued', async () => {
      const requeue = { placeholders: {}, skipTransports: ['smpp'] };
      const sentThroughSmpp = async () => {
        const input = newPin({ expiresAt: T0 + 60_000 });
        await store.createPin(input, [], T0);
        const [row] = (await store.claimOutbox(T0, T0 + 1000, 1000)).filter((c) => c.pinId === input.pin.id);
        await store.completeOutbox(row!.id, input.pin.id, T0, { transport: 'smpp', providerMessageId: `smpp-${input.pin.id}` });
        return { input, receipt: { transport: 'smpp', providerMessageId: `smpp-${input.pin.id}`, status: 'undelivered' as const, at: T0 + 50 } };
      };
      const verified = await sentThroughSmpp();
      const won = await verifyAttempt(verified.input.pin, T0 + 40, [], () => true);
      assert.equal(won.kind === 'counted' && won.verified, true);
      assert.equal((await store.recordReceipt(verified.receipt, { now: T0 + 50, requeue }))?.requeued, false, 'a verified PIN is not sent again');

      const resent = await sentThroughSmpp();
      await store.queueResend(resent.input.pin.id, 'sms', { id: randomUUID(), request: { placeholders: {} } }, [], T0 + 40);
      assert.equal((await store.recordReceipt(resent.receipt, { now: T0 + 50, requeue }))?.requeued, false, 'a resend is on its way already');
      assert.equal((await store.claimOutbox(T0 + 60, T0 + 1000, 1000)).filter((c) => c.pinId === resent.input.pin.id).length, 1, 'only the resend is queued');
    });

    it('routes: counts a PIN\'s first routed delivery and its verification once each, in either order, per transport and country', async () => {
      const routes = store.routes;
      const pin = () => randomUUID();
      const [a, b, c, d] = [pin(), pin(), pin(), pin()];
      await routes.countRoutedDelivery(a, 'smsc', 'IN', T0);
      await routes.countRoutedDelivery(a, 'infobip', 'IN', T0 + 10); // a resend of the same PIN
      await routes.countRoutedVerification(a, T0 + 20);
      await routes.countRoutedVerification(a, T0 + 30); // verified again (allowMultiplePinVerifications)
      // A verification that overtakes the delivery's count is credited when the delivery is counted.
      await routes.countRoutedVerification(b, T0 + 40);
      await routes.countRoutedDelivery(b, 'smsc', 'IN', T0 + 40);
      await routes.countRoutedDelivery(c, 'smsc', 'IN', T0 + 50);
      await routes.countRoutedDelivery(d, 'vonage', 'FR', T0 + 60);
      assert.deepEqual(Object.fromEntries(await routes.conversionsTo('IN', T0 - 3_600_000)), { smsc: { sent: 3, verified: 2 } });
      assert.deepEqual(Object.fromEntries(await routes.conversionsTo('FR', T0 - 3_600_000)), { vonage: { sent: 1, verified: 0 } });
      assert.deepEqual(Object.fromEntries(await routes.conversionsTo('IN', T0 + 3_600_000)), {}, 'hours before `since` are left out');
      await routes.purge(T0 + 3 * 3_600_000);
      assert.deepEqual(Object.fromEntries(await routes.conversionsTo('IN', 0)), {});
    });

    it('routes: keeps an application\'s sender per country', async () => {
      const routes = store.routes;
      const applicationId = randomUUID();
      await routes.putApplicationSender('acct', applicationId, { country: 'IN', id: 'ACMEIN', kind: 'alphanumeric', updatedAt: T0 });
      await routes.putApplicationSender('acct', applicationId, { country: 'US', id: '15005550006', kind: 'long_code', updatedAt: T0 });
      await routes.putApplicationSender('acct', applicationId, { country: 'IN', id: 'ACMEPY', kind: 'alphanumeric', updatedAt: T0 + 1 });
      assert.deepEqual(await routes.applicationSender(applicationId, 'IN'), { id: 'ACMEPY', kind: 'alphanumeric' });
      assert.deepEqual((await routes.listApplicationSenders(applicationId)).map((x) => [x.country, x.id]), [['IN', 'ACMEPY'], ['US', '15005550006']]);
      assert.equal(await routes.deleteApplicationSender(applicationId, 'IN'), true);
      assert.equal(await routes.deleteApplicationSender(applicationId, 'IN'), false);
      assert.equal(await routes.applicationSender(applicationId, 'IN'), undefined);
    });
  });
}
