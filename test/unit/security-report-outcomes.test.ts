// What RELIABILITY.md's verdicts rest on: the reporter that records each hardening test's outcome
// (scripts/test-outcomes-reporter.mjs), and the attack suite's checks (test/security/support/results.ts),
// whose verdict is the measured condition and which record a failure however a T-test fails.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../support/server-process.js';

describe('the security report\'s evidence', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-report-outcomes-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Runs one test file of `source` under node --test (with tsx); returns the child's exit status. */
  function runTestFile(name: string, source: string, args: string[], env: Record<string, string> = {}): number | null {
    const file = path.join(dir, name);
    fs.writeFileSync(file, source);
    // Without the runner's NODE_TEST_CONTEXT, the child is a test run of its own, not a part of this one.
    const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
    return spawnSync(process.execPath, ['--import', 'tsx', '--test', ...args, file], { cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...inherited, ...env } }).status;
  }

  it('records each test that ran as passed, failed or skipped, and only those the name pattern selects', () => {
    const outcomes = path.join(dir, 'outcomes.jsonl');
    runTestFile('proofs.test.mjs', `
      import { describe, it } from 'node:test';
      describe('a suite', () => {
        it('holds (a proof)', () => {});
        it('breaks (a proof)', () => { throw new Error('broken'); });
        it('skipped (a proof)', { skip: 'no database' }, () => {});
        it('not selected', () => {});
      });
    `, ['--test-reporter', path.join(PROJECT_ROOT, 'scripts', 'test-outcomes-reporter.mjs'), '--test-reporter-destination', outcomes, '--test-name-pattern=\\(a proof\\)$']);
    const recorded = fs.readFileSync(outcomes, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { name: string; outcome: string });
    assert.deepEqual(recorded.map(({ name, outcome }) => `${name}: ${outcome}`).sort(), ['breaks (a proof): failed', 'holds (a proof): passed', 'skipped (a proof): skipped']);
  });

  it('a T-test that fails before its check is recorded as a failed check; a check asserts its verdict', () => {
    const results = path.join(PROJECT_ROOT, 'test', 'security', 'support', 'results.ts');
    const status = runTestFile('attack.test.ts', `
      import { after, it } from 'node:test';
      import { createResults } from ${JSON.stringify(results)};
      const results = createResults('attack', { tests: ['T98', 'T99'], standards: [] });
      after(() => results.save());
      it('T98: fails before its check', () => { throw new Error('an assertion failed'); });
      it('T99: measures a violation', () => { results.check('T99', 1 + 1 === 3, 'a measured condition that does not hold'); });
    `, [], { TWOFA_SECURITY_RESULTS_DIR: dir });
    assert.equal(status, 1, 'both tests fail');
    const saved = JSON.parse(fs.readFileSync(path.join(dir, 'attack.json'), 'utf8')) as { checks: { id: string; passed: boolean }[] };
    assert.deepEqual([...new Set(saved.checks.map((c) => `${c.id} ${c.passed}`))].sort(), ['T98 false', 'T99 false']);
  });
});
