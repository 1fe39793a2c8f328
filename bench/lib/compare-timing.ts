// The wall-clock side of two properties the attack suite proves by construction (test/security: T15
// observes that every candidate PIN is one timingSafeEqual of two 32-byte HMACs, T21 that every API
// key is one lookup by its digest). Timing is no gate on a shared 2-core machine, so the figures live
// in the benchmark:
// - a wrong PIN with 0 and with 5 of 6 digits right, through PinKeyring.matches;
// - a key right but for its last character and a random one, through authenticate() on a SQLite store.
// Each pair is measured interleaved, so warm-up and machine noise fall on both alike; Welch's t says
// how far apart the means are in units of their standard error (|t| well under 4: indistinguishable).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import { generatePinId } from '../../src/domain/pin-generation.js';
import { authenticate, createApiKey } from '../../src/service/api-keys.js';
import { openStore } from '../../src/store/open-store.js';

export interface CompareTiming {
  name: string;
  samples: number;
  /** The two inputs compared, each with its mean and median in nanoseconds. */
  inputs: [CompareInput, CompareInput];
  welchT: number;
}

interface CompareInput {
  label: string;
  meanNs: number;
  medianNs: number;
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const variance = (xs: number[]) => {
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Times `a` and `b` alternately, `samples` times each after a tenth as many warm-up rounds. */
async function interleaved(name: string, samples: number, inputs: [[string, () => unknown], [string, () => unknown]]): Promise<CompareTiming> {
  const ns: [number[], number[]] = [[], []];
  const warmup = Math.ceil(samples / 10);
  for (let i = 0; i < samples + warmup; i += 1) {
    for (const which of [0, 1] as const) {
      const started = process.hrtime.bigint();
      const pending = inputs[which][1]();
      if (pending instanceof Promise) await pending;
      const elapsed = Number(process.hrtime.bigint() - started);
      if (i >= warmup) ns[which].push(elapsed);
    }
  }
  const [a, b] = ns;
  const describe = (which: 0 | 1): CompareInput => ({ label: inputs[which][0], meanNs: Math.round(mean(ns[which])), medianNs: median(ns[which]) });
  const welchT = (mean(a) - mean(b)) / Math.sqrt(variance(a) / a.length + variance(b) / b.length);
  return { name, samples, inputs: [describe(0), describe(1)], welchT: Number(welchT.toFixed(3)) };
}

export async function measureCompareTiming(samples: number): Promise<CompareTiming[]> {
  const keyring = new PinKeyring('bench-secret-0123456789-ABCDEFGHIJ-klmnopqrstuv');
  const pinId = generatePinId();
  const stored = keyring.hashPin(pinId, '123456');
  const pin = await interleaved('PIN compare (PinKeyring.matches)', samples, [
    ['0 of 6 digits right', () => keyring.matches(stored, pinId, '900000')],
    ['5 of 6 digits right', () => keyring.matches(stored, pinId, '123450')],
  ]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-key-timing-'));
  const store = await openStore(`sqlite:${path.join(dir, 'twofa.db')}`);
  try {
    const { key } = await createApiKey(store, { now: Date.now() });
    const nearly = `App ${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    const random = `App tfa_${'Z'.repeat(key.length - 4)}`;
    const lookup = await interleaved('API key lookup (authenticate on SQLite)', samples, [
      ['right but for the last character', () => authenticate(store, nearly)],
      ['random, of the same length', () => authenticate(store, random)],
    ]);
    return [pin, lookup];
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
