// `npx tsx bench/key-and-pin-timing.ts [--samples=20000]`: the wall-clock side of two properties the
// attack suite proves by construction (test/security: T15 observes that every candidate PIN is one
// timingSafeEqual of two 32-byte HMACs, T21 that every API key is one lookup by its digest). Timing
// is no gate on a shared 2-core machine, so the figures live here:
// - a wrong PIN with 0 and with 5 of 6 digits right, through PinKeyring.matches;
// - a key right but for its last character and a random one, through authenticate() on a SQLite store.
// Each pair is measured interleaved, so warm-up and machine noise fall on both alike; Welch's t says
// how far apart the means are in units of their standard error (|t| well under 4: indistinguishable).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PinKeyring } from '../src/domain/pin-secrets.js';
import { generatePinId } from '../src/domain/pin-generation.js';
import { authenticate, createApiKey } from '../src/service/api-keys.js';
import { openStore } from '../src/store/open-store.js';

const option = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const samples = Number(option('samples') ?? 20_000);
const warmup = Math.ceil(samples / 10);
const log = (line: string) => process.stdout.write(`${line}\n`);

interface Pair { label: [string, string]; ns: [number[], number[]] }

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const variance = (xs: number[]) => {
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const welchT = ([a, b]: [number[], number[]]) => (mean(a) - mean(b)) / Math.sqrt(variance(a) / a.length + variance(b) / b.length);

/** Times `a` and `b` alternately, `samples` times each after a warm-up, in nanoseconds. */
async function interleaved(label: [string, string], a: () => unknown, b: () => unknown): Promise<Pair> {
  const ns: [number[], number[]] = [[], []];
  for (let i = 0; i < samples + warmup; i += 1) {
    for (const [which, run] of [[0, a], [1, b]] as const) {
      const started = process.hrtime.bigint();
      const pending = run();
      if (pending instanceof Promise) await pending;
      const elapsed = Number(process.hrtime.bigint() - started);
      if (i >= warmup) ns[which].push(elapsed);
    }
  }
  return { label, ns };
}

function report(title: string, pair: Pair): void {
  const [a, b] = pair.ns;
  log(`${title} (${samples} each, interleaved)`);
  log(`  ${pair.label[0].padEnd(34)} mean ${mean(a).toFixed(0).padStart(7)} ns  median ${median(a).toFixed(0).padStart(7)} ns`);
  log(`  ${pair.label[1].padEnd(34)} mean ${mean(b).toFixed(0).padStart(7)} ns  median ${median(b).toFixed(0).padStart(7)} ns`);
  log(`  Welch t = ${welchT(pair.ns).toFixed(3)}`);
}

const keyring = new PinKeyring('bench-secret-0123456789-ABCDEFGHIJ-klmnopqrstuv');
const pinId = generatePinId();
const stored = keyring.hashPin(pinId, '123456');
report('PIN compare (PinKeyring.matches)', await interleaved(['0 of 6 digits right', '5 of 6 digits right'],
  () => keyring.matches(stored, pinId, '900000'), () => keyring.matches(stored, pinId, '123450')));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-key-timing-'));
const store = await openStore(`sqlite:${path.join(dir, 'twofa.db')}`);
try {
  const { key } = await createApiKey(store, { now: Date.now() });
  const nearly = `App ${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
  const random = `App tfa_${'Z'.repeat(key.length - 4)}`;
  report('API key lookup (authenticate on SQLite)', await interleaved(['right but for the last character', 'random, of the same length'],
    () => authenticate(store, nearly), () => authenticate(store, random)));
} finally {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
