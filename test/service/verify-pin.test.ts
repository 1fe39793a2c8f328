// The verify use case (src/service/verify-pin.ts) on its own: every answer Infobip's clients rely
// on, the attempts it counts (also under concurrent requests), its limit and its audit trail, on the
// in-memory store, without HTTP or SQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifyPin } from '../../src/service/verify-pin.js';
import { PHONE, serviceFixture, storedPin, type FixtureOptions, type ServiceFixture } from './service-fixture.js';

/** A fixture with one PIN sent (pinAttempts 3, single-use, 10 minutes), and its PIN in clear. */
async function sentPin(options: FixtureOptions = {}): Promise<{ f: ServiceFixture; pinId: string; pin: string; wrong: string }> {
  const f = await serviceFixture(options);
  const { pinId } = await f.send();
  const pin = storedPin(f, pinId, (await f.store.getPin(f.principal.accountId, pinId))!.pinCiphertext)!;
  // A wrong candidate of the right shape: the PIN with its first digit changed.
  const wrong = `${(Number(pin[0]) + 1) % 10}${pin.slice(1)}`;
  return { f, pinId, pin, wrong };
}

async function verify(f: ServiceFixture, pinId: string, candidate: string) {
  const result = await verifyPin(f.ctx, f.principal, pinId, candidate);
  assert.ok(result.ok, `answered: ${result.ok ? '' : result.failure.text}`);
  return result.value;
}

describe('verifyPin', () => {
  it('verifies the right PIN once: the PIN is then erased, and a repeat is ALREADY_VERIFIED', async () => {
    const { f, pinId, pin } = await sentPin();
    assert.deepEqual(await verify(f, pinId, pin), { pinId, destination: PHONE, verified: true, attemptsRemaining: 2 });
    const stored = await f.store.getPin(f.principal.accountId, pinId);
    assert.equal(stored?.pinCiphertext, null, 'nothing left to resend');
    assert.deepEqual(await verify(f, pinId, pin), { pinId, destination: PHONE, verified: false, attemptsRemaining: 2, pinError: 'ALREADY_VERIFIED' });
    assert.ok(f.calls.includes(`pinEnded:${pinId}`), 'providers are told to take back an undelivered message');
  });

  it('answers WRONG_PIN with the attempts left, any string counting as a wrong attempt, then NO_MORE_PIN_ATTEMPTS, even for the right PIN', async () => {
    const { f, pinId, pin, wrong } = await sentPin();
    assert.deepEqual(await verify(f, pinId, wrong), { pinId, destination: PHONE, verified: false, attemptsRemaining: 2, pinError: 'WRONG_PIN' });
    assert.equal((await verify(f, pinId, 'not even digits')).attemptsRemaining, 1, 'a candidate of the wrong shape is a wrong attempt');
    assert.ok(!f.calls.includes(`pinEnded:${pinId}`));
    assert.deepEqual(await verify(f, pinId, `${pin}0`), { pinId, destination: PHONE, verified: false, attemptsRemaining: 0, pinError: 'WRONG_PIN' });
    assert.ok(f.calls.includes(`pinEnded:${pinId}`), 'locked by its last wrong attempt');
    assert.deepEqual(await verify(f, pinId, pin), { pinId, destination: PHONE, verified: false, attemptsRemaining: 0, pinError: 'NO_MORE_PIN_ATTEMPTS' });
    assert.notEqual((await f.store.getPin(f.principal.accountId, pinId))?.lockedAt, null);
  });

  it('answers TTL_EXPIRED once the PIN has expired, counting no attempt', async () => {
    const { f, pinId, pin } = await sentPin();
    f.clock.advance(10 * 60_000);
    assert.deepEqual(await verify(f, pinId, pin), { pinId, destination: PHONE, verified: false, attemptsRemaining: 3, pinError: 'TTL_EXPIRED' });
  });

  it('verifies until the last moment of the PIN\'s life', async () => {
    const { f, pinId, pin } = await sentPin();
    f.clock.advance(10 * 60_000 - 1);
    assert.equal((await verify(f, pinId, pin)).verified, true);
  });

  it('lets an application allow several verifications of one PIN', async () => {
    const { f, pinId, pin } = await sentPin({ configuration: { allowMultiplePinVerifications: true } });
    assert.equal((await verify(f, pinId, pin)).verified, true);
    assert.deepEqual(await verify(f, pinId, pin), { pinId, destination: PHONE, verified: true, attemptsRemaining: 1 });
  });

  it('answers PIN_NOT_FOUND for an unknown pinId and for another account\'s PIN, counting nothing', async () => {
    const { f, pinId, pin } = await sentPin();
    const unknown = await verifyPin(f.ctx, f.principal, '0'.repeat(32), pin);
    assert.equal(!unknown.ok && unknown.failure.name, 'PIN_NOT_FOUND');
    const other = await verifyPin(f.ctx, { ...f.principal, accountId: 'another-account' }, pinId, pin);
    assert.equal(!other.ok && other.failure.name, 'PIN_NOT_FOUND');
    assert.equal((await verify(f, pinId, pin)).attemptsRemaining, 2, 'all three attempts were still there');
  });

  it('refuses a request past verifyPinLimit before it spends an attempt', async () => {
    const { f, pinId, pin, wrong } = await sentPin({ configuration: { verifyPinLimit: '2/1m' } });
    await verify(f, pinId, wrong);
    await verify(f, pinId, wrong);
    const refused = await verifyPin(f.ctx, f.principal, pinId, pin);
    assert.equal(!refused.ok && refused.failure.name, 'VERIFY_LIMIT');
    assert.ok(!refused.ok && refused.failure.retryAfterMs! > 0 && refused.failure.retryAfterMs! <= 60_000);
    assert.ok(f.calls.includes('metric:rateLimited:verifyPinLimit'));
    f.clock.advance(60_000);
    assert.deepEqual(await verify(f, pinId, pin), { pinId, destination: PHONE, verified: true, attemptsRemaining: 0 }, 'the refused request spent no attempt');
  });

  it('audits every decision with its outcome, never the candidate PIN or the full destination', async () => {
    const { f, pinId, pin, wrong } = await sentPin({ configuration: { verifyPinLimit: '3/1m' } });
    await verify(f, pinId, wrong);
    await verify(f, pinId, pin);
    await verify(f, pinId, pin);
    await verifyPin(f.ctx, f.principal, pinId, pin);
    const entries = await f.store.audit.list(f.principal.accountId, { pinId }, 100);
    assert.deepEqual(entries.map((e) => [e.event, e.reason]), [
      ['pin.send', 'sms'], ['pin.verify', 'WRONG_PIN'], ['pin.verify', 'verified'], ['pin.verify', 'ALREADY_VERIFIED'], ['pin.verify.refused', 'verifyPinLimit'],
    ]);
    assert.ok(entries.every((e) => e.actor === 'key-1' && e.sourceIp === '203.0.113.7'));
    const text = JSON.stringify(entries);
    assert.ok(!text.includes(wrong) && !text.includes(pin) && !text.includes(PHONE));
  });

  it('counts concurrent attempts atomically: never more than pinAttempts, each count answered once', async () => {
    const { f, pinId, wrong } = await sentPin({ configuration: { pinAttempts: 5 } });
    const answers = await Promise.all(Array.from({ length: 20 }, () => verify(f, pinId, wrong)));
    const counted = answers.filter((a) => a.pinError === 'WRONG_PIN');
    assert.deepEqual(counted.map((a) => a.attemptsRemaining).sort(), [0, 1, 2, 3, 4]);
    assert.equal(answers.filter((a) => a.pinError === 'NO_MORE_PIN_ATTEMPTS').length, 15);
  });

  it('lets exactly one of concurrent right PINs verify a single-use PIN, the others spending nothing', async () => {
    const { f, pinId, pin } = await sentPin();
    const answers = await Promise.all(Array.from({ length: 10 }, () => verify(f, pinId, pin)));
    assert.equal(answers.filter((a) => a.verified).length, 1);
    assert.ok(answers.filter((a) => !a.verified).every((a) => a.pinError === 'ALREADY_VERIFIED' && a.attemptsRemaining === 2));
  });
});
