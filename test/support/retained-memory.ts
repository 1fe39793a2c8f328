// What the heap keeps: memory figures taken after a full garbage collection, so that a test asserting
// "nothing accumulates" compares what something holds on to, not when the collector last ran (RSS
// and an uncollected heap move with the GC's own heuristics, which differ between Node versions).
import v8 from 'node:v8';
import vm from 'node:vm';

/** Collects garbage now, so that what the heap holds afterwards is only what something keeps. */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

/** Bytes the JavaScript heap and its ArrayBuffers hold after a full collection. */
export function retainedBytes(): number {
  collectGarbage();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}
