// `npm run test:security`: the attack suite (test/security) through the project's test runner, then
// the summary of what it measured, which runs the hardening tests it names (scripts/security-report.mjs).
// Exits non-zero when a test of either failed. Options:
//   --long     the plan's full trial counts (TWOFA_SECURITY_LONG=1): 50 race trials, 20 kill cycles,
//              10 000 fuzz runs per operation, a 30-minute soak...
//   --report   also write RELIABILITY.md from this run (scripts/security-report.mjs)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const long = args.includes('--long');
const report = args.includes('--report');
const targets = args.filter((a) => !a.startsWith('--'));

// Results of an earlier run must not mix with this one's.
fs.rmSync(path.join(root, 'test', 'security', '.results'), { recursive: true, force: true });
const run = spawnSync(process.execPath, [path.join(root, 'scripts', 'run-tests.mjs'), ...(targets.length > 0 ? targets : ['test/security'])], {
  cwd: root, stdio: 'inherit', env: { ...process.env, ...(long ? { TWOFA_SECURITY_LONG: '1' } : {}) },
});
const status = run.status ?? 1;
const reportArgs = [path.join(root, 'scripts', 'security-report.mjs'), '--status', String(status)];
if (!report) reportArgs.push('--out', path.join('test', 'security', '.results', 'RELIABILITY.md'));
const reported = spawnSync(process.execPath, reportArgs, { cwd: root, stdio: 'inherit' });
process.exit(status || (reported.status ?? 1));
