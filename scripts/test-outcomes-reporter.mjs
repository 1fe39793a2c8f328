// A node:test reporter that writes one JSON line per test that ran to completion: its file, its name
// and whether it passed. scripts/security-report.mjs runs the hardening tests through it, so that each
// line of RELIABILITY.md's hardening table shows the outcome of its own tests in that run.
export default async function* testOutcomes(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, name, skip, todo, details } = event.data;
    if (details?.type === 'suite') continue;
    const outcome = event.type === 'test:fail' ? 'failed' : skip !== undefined && skip !== false ? 'skipped' : todo !== undefined && todo !== false ? 'todo' : 'passed';
    yield `${JSON.stringify({ file, name, outcome })}\n`;
  }
}
