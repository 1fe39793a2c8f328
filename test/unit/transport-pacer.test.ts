// The pacer's back-pressure on its own, with a scripted provider: what the provider sees after it says
// "not now" (fewer requests at once, and no request before its Retry-After), and that it sees the
// transport's full window again once it accepts messages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryAfterMs, TransportPacer } from '../../src/delivery/transport-pacer.js';
import type { DeliveryResult } from '../../src/delivery/transport.js';

/** A provider whose answers the test gives one by one; it counts what it holds at once. */
class ScriptedProvider {
  readonly pending: ((result: DeliveryResult) => void)[] = [];
  inFlight = 0;
  maxInFlight = 0;

  send = (): Promise<DeliveryResult> => new Promise((resolve) => {
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.pending.push((result) => {
      this.inFlight -= 1;
      resolve(result);
    });
  });

  /** Answers the `count` oldest requests with `result`. */
  answer(count: number, result: DeliveryResult): void {
    for (const respond of this.pending.splice(0, count)) respond(result);
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
const throttled: DeliveryResult = { ok: false, retryable: true, error: 'HTTP 429', throttled: { retryAfterMs: 0 } };

/** Polls (bounded) until `condition` holds; the pacer's timers run meanwhile. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await tick();
  assert.ok(condition(), what);
}

describe('TransportPacer back-pressure', () => {
  it('halves the window once for answers that were all on their way, and grows it back as messages are accepted', async () => {
    const provider = new ScriptedProvider();
    const pacer = new TransportPacer('scripted', { maxInFlight: 8 });
    const runs = Array.from({ length: 200 }, () => pacer.run(provider.send));
    await until(() => provider.pending.length === 8, 'the window of 8 is full');
    // Four answers of "not now" to requests sent before any of them: one halving, not four.
    provider.answer(4, throttled);
    await tick();
    assert.equal(pacer.state().window, 4, 'the window is halved once');
    assert.equal(provider.pending.length, 4, 'the refused messages wait: the provider holds no more than the halved window');
    assert.equal(provider.maxInFlight, 8);
    // Accepting, the provider sees the window grow back to 8 (one slot per window of accepted messages).
    provider.maxInFlight = 0;
    while (provider.pending.length > 0) {
      provider.answer(provider.pending.length, { ok: true });
      await tick();
    }
    const results = await Promise.all(runs);
    assert.ok(results.every((r) => r.ok), 'every message, the refused ones included, was accepted');
    assert.equal(pacer.state().window, 8, 'back to the full window');
    assert.equal(provider.maxInFlight, 8, 'never more than the window');
  });

  it('sends nothing before the provider\'s Retry-After, then the refused message first', async () => {
    const provider = new ScriptedProvider();
    const pacer = new TransportPacer('scripted', { maxInFlight: 1 });
    const order: string[] = [];
    const first = pacer.run(async () => {
      order.push('first');
      return provider.send();
    });
    const second = pacer.run(async () => {
      order.push('second');
      return provider.send();
    });
    await until(() => provider.pending.length === 1, 'the first is sent');
    provider.answer(1, { ...throttled, throttled: { retryAfterMs: 300 } });
    await tick();
    assert.ok(pacer.state().pausedForMs > 200, 'paused for the Retry-After');
    assert.equal(provider.pending.length, 0, 'nothing is sent during the pause');
    await until(() => provider.pending.length === 1, 'sent again after the pause');
    assert.deepEqual(order, ['first', 'first'], 'the refused message goes before the one that waited');
    provider.answer(1, { ok: true });
    await until(() => provider.pending.length === 1, 'then the next');
    provider.answer(1, { ok: true });
    assert.deepEqual(await Promise.all([first, second]), [{ ok: true }, { ok: true }]);
  });

  it('returns the refusal when the PIN would expire before the pause ends', async () => {
    const provider = new ScriptedProvider();
    const now = Date.now();
    const pacer = new TransportPacer('scripted', { maxInFlight: 1 }, { clock: () => now });
    const run = pacer.run(provider.send, now + 1000);
    await until(() => provider.pending.length === 1, 'sent');
    provider.answer(1, { ...throttled, throttled: { retryAfterMs: 60_000 } });
    assert.deepEqual(await run, { ...throttled, throttled: { retryAfterMs: 60_000 } });
  });

  it('reads Retry-After in seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryAfterMs('2', now), 2000);
    assert.equal(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now), 5000);
    assert.equal(retryAfterMs('soon', now), undefined);
    assert.equal(retryAfterMs(undefined, now), undefined);
  });
});
