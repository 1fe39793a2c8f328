// PostgreSQL's asynchronous commits on the hot path are durable once a synchronous commit that began
// after them has returned (the WAL is flushed in order). DeferredFlushes decides when durable() may
// resolve without a barrier of its own, and shares one barrier among the requests waiting meanwhile.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeferredFlushes } from '../../src/store/postgres/deferred-flushes.js';

function controllable(): { promise: Promise<void>; resolve: () => void; reject: (err: Error) => void } {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('DeferredFlushes', () => {
  it('resolves at once while nothing was committed asynchronously', async () => {
    let barriers = 0;
    const flushes = new DeferredFlushes(async () => void barriers++);
    await flushes.durable();
    assert.equal(barriers, 0);
  });

  it('needs no barrier after a synchronous commit that began after the asynchronous one returned', async () => {
    let barriers = 0;
    const flushes = new DeferredFlushes(async () => void barriers++);
    await flushes.deferred(async () => 'committed');
    await flushes.synchronous(async () => 'audit entry');
    await flushes.durable();
    assert.equal(barriers, 0);
  });

  it('runs a barrier when the synchronous commit began before the asynchronous one returned', async () => {
    let barriers = 0;
    const flushes = new DeferredFlushes(async () => void barriers++);
    const earlier = controllable();
    const sync = flushes.synchronous(() => earlier.promise);
    await flushes.deferred(async () => 'committed');
    earlier.resolve();
    await sync;
    await flushes.durable();
    assert.equal(barriers, 1);
  });

  it('counts a failed asynchronous statement too (it may have committed before the connection failed)', async () => {
    let barriers = 0;
    const flushes = new DeferredFlushes(async () => void barriers++);
    await assert.rejects(flushes.deferred(async () => {
      throw new Error('connection lost');
    }));
    await flushes.durable();
    assert.equal(barriers, 1);
  });

  it('shares one barrier among the waiters, and starts another for a commit that returned after it began', async () => {
    const started: ReturnType<typeof controllable>[] = [];
    const flushes = new DeferredFlushes(() => {
      const barrier = controllable();
      started.push(barrier);
      return barrier.promise;
    });
    await flushes.deferred(async () => 'first');
    const waiters = [flushes.durable(), flushes.durable()];
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(started.length, 1);
    await flushes.deferred(async () => 'second, while the barrier is under way');
    const late = flushes.durable();
    started[0]!.resolve();
    await Promise.all(waiters);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(started.length, 2, 'the first barrier began before the second commit returned');
    started[1]!.resolve();
    await late;
  });

  it('fails durable() when the barrier fails: nothing is answered as durable', async () => {
    const flushes = new DeferredFlushes(async () => {
      throw new Error('database down');
    });
    await flushes.deferred(async () => 'committed');
    await assert.rejects(flushes.durable(), /database down/);
  });
});
