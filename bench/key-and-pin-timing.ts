// `npx tsx bench/key-and-pin-timing.ts [--samples=20000]`: the constant-time comparisons alone (what
// `npm run bench` measures in its `timing` group, bench/lib/compare-timing.ts says how), printed.
import { measureCompareTiming } from './lib/compare-timing.js';

const samples = Number(process.argv.find((a) => a.startsWith('--samples='))?.slice('--samples='.length) ?? 20_000);
for (const timing of await measureCompareTiming(samples)) {
  process.stdout.write(`${timing.name} (${timing.samples} each, interleaved)\n`);
  for (const input of timing.inputs) process.stdout.write(`  ${input.label.padEnd(34)} mean ${String(input.meanNs).padStart(7)} ns  median ${String(input.medianNs).padStart(7)} ns\n`);
  process.stdout.write(`  Welch t = ${timing.welchT}\n`);
}
