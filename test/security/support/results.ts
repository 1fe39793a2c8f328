// What each file of the attack suite measured, for the report (scripts/security-report.mjs writes
// RELIABILITY.md from these files). Every file keeps one JSON in test/security/.results/ (gitignored):
// the T-ids it covers, the standards they check, counters (trials, violations, bad inputs, 5xx,
// secrets found...) and free-form figures (latencies, durations). The counters are cumulative, so a
// check that could fail and did not is counted as tried.
//
// A check's verdict is the condition the test measured, and check() asserts it, so a verdict and the
// test's outcome cannot disagree. A test named after T-ids ("T21: ...") that fails anywhere, before
// its check is reached included, records a failed check for each of them: the report merges every
// check of one T-id, and one failure is enough to show it as not passed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { afterEach } from 'node:test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where results are kept. The report runs some attack tests again as hardening proofs and points
 * them elsewhere (TWOFA_SECURITY_RESULTS_DIR), so that a partial run never replaces a full one's figures.
 */
export const RESULTS_DIR = process.env['TWOFA_SECURITY_RESULTS_DIR'] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '.results');

/** Long trials (TWOFA_SECURITY_LONG=1, `npm run test:security -- --long`): the plan's full counts. */
export const LONG = process.env['TWOFA_SECURITY_LONG'] === '1';

/** `short` in the default run (part of npm test), `long` with TWOFA_SECURITY_LONG=1. */
export function scale(short: number, long: number): number {
  return LONG ? long : short;
}

export interface Results {
  /** Adds to a counter (created at 0). */
  add(counter: string, n?: number): void;
  /** Sets a figure (a latency, a rate, a duration, a label). */
  set(name: string, value: number | string | boolean | null): void;
  note(text: string): void;
  /**
   * A per-test verdict shown in the report: whether the measured condition of a T-id held, with the
   * evidence. Asserts `passed`: a failed check fails the test that made it.
   */
  check(id: string, passed: boolean, detail: string): void;
  counters: Record<string, number>;
  save(): void;
}

export function createResults(name: string, meta: { tests: string[]; standards: string[]; database?: string }): Results {
  const startedAt = Date.now();
  const counters: Record<string, number> = {};
  const figures: Record<string, number | string | boolean | null> = {};
  const notes: string[] = [];
  const checks: { id: string; passed: boolean; detail: string }[] = [];
  afterEach((t) => {
    // TestContext.passed (Node 21.7+) is missing from @types/node.
    if ((t as { passed?: boolean }).passed !== false) return;
    for (const id of t.name.match(/\bT\d\d\b/g) ?? []) checks.push({ id, passed: false, detail: `the test "${t.name}" failed` });
  });
  const save = () => {
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    const body = {
      name, tests: meta.tests, standards: meta.standards, database: meta.database ?? 'sqlite', long: LONG,
      startedAt: new Date(startedAt).toISOString(), durationMs: Date.now() - startedAt, node: process.version,
      counters, figures, checks, notes,
    };
    fs.writeFileSync(path.join(RESULTS_DIR, `${name}.json`), `${JSON.stringify(body, null, 2)}\n`);
  };
  return {
    counters,
    add(counter, n = 1) { counters[counter] = (counters[counter] ?? 0) + n; },
    set(key, value) { figures[key] = value; },
    note(text) { notes.push(text); },
    check(id, passed, detail) {
      checks.push({ id, passed, detail });
      assert.ok(passed, `${id} not passed: ${detail}`);
    },
    save,
  };
}

/** Every occurrence of any needle in any haystack, as "<where>: <label>" (for the secret scans). */
export function findSecrets(haystacks: { where: string; text: string | Buffer }[], needles: { label: string; value: string }[]): string[] {
  const found: string[] = [];
  for (const { where, text } of haystacks) {
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    for (const { label, value } of needles) {
      if (value.length < 4) continue;
      for (const form of [Buffer.from(value, 'utf8'), Buffer.from(value, 'utf16le')]) {
        if (bytes.includes(form)) found.push(`${where}: ${label}`);
      }
    }
  }
  return found;
}

/** p-th percentile (0..100) of a list of numbers. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/** A PIN of the same length and alphabet that is certainly not `pin`. */
export function wrongPinFor(pin: string): string {
  const last = pin.at(-1)!;
  const next = /[0-9]/.test(last) ? String((Number(last) + 1) % 10) : last === 'Z' ? 'A' : String.fromCharCode(last.charCodeAt(0) + 1);
  return `${pin.slice(0, -1)}${next}`;
}
