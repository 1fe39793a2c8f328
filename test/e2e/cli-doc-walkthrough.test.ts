// docs/cli.md's "A verified PIN through the command line in under five minutes" works as written: its
// commands run in one bash process against a real server started with the walkthrough's key, with
// `npx twofa` standing for this checkout's CLI. The PIN is read the way the section's last paragraph
// says a script should, instead of by eye.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI_ENTRY, PROJECT_ROOT, cleanEnv, startServerProcess, type ServerProcess } from '../support/server-process.js';

const CLI_DOC = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'cli.md'), 'utf8');

function section(markdown: string, heading: RegExp): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => heading.test(l));
  if (start === -1) throw new Error(`docs/cli.md has no heading ${heading}`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => /^##+ /.test(l));
  return (end === -1 ? rest : rest.slice(0, end)).join('\n');
}

describe('docs/cli.md command-line walkthrough', () => {
  const text = section(CLI_DOC, /^## A verified PIN through the command line/);
  const block = /```sh\n([\s\S]*?)\n```/.exec(text)?.[1] ?? '';
  const scriptLine = /`(PIN=\$\(npx twofa inbox[^`]+)`/.exec(text)?.[1] ?? '';
  let server: ServerProcess | undefined;
  let workDir = '';
  let result: { status: number | null; stdout: string; stderr: string };

  before(async () => {
    const key = /TWOFA_BOOTSTRAP_API_KEY=(\S+)/.exec(block)?.[1];
    assert.ok(key, 'the walkthrough starts the server with a bootstrap key');
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-cli-walkthrough-'));
    server = await startServerProcess({ TWOFA_BOOTSTRAP_API_KEY: key, TWOFA_DATA_DIR: path.join(workDir, 'data') });
    const port = new URL(server.url).port;
    const commands = block.split('\n')
      .filter((line) => !/npm start &|^sleep /.test(line) && !/^#/.test(line))
      .map((line) => line.replace(/\s+#\s.*$/, ''))
      // The two verify lines read the PIN by eye (a fixed example); the script form reads it for real.
      .filter((line) => !/^npx twofa verify \$PIN_ID \d{6}$/.test(line) || /000000/.test(line));
    const script = [
      'set -euo pipefail',
      `npx() { shift; node --import tsx ${JSON.stringify(CLI_ENTRY)} "$@"; }`,
      `export TWOFA_PORT=${port} TWOFA_DATA_DIR=${JSON.stringify(path.join(workDir, 'data'))}`,
      ...commands.map((line) => line.replace(/^(npx twofa verify \$PIN_ID 000000)$/, '$1 || echo "wrong PIN refused (exit $?)"')),
      scriptLine,
      'npx twofa verify $PIN_ID $PIN',
    ].join('\n');
    result = spawnSync('bash', ['-c', script], { cwd: PROJECT_ROOT, env: cleanEnv(), encoding: 'utf8', timeout: 120_000 });
  });

  after(async () => {
    if (server) await server.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('reaches a verified PIN', () => {
    assert.ok(block.includes('npx twofa apps create') && scriptLine !== '', 'the section has its commands');
    assert.equal(result.status, 0, `bash exited ${result.status}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`);
    assert.match(result.stdout, /not verified: WRONG_PIN, 4 attempts remaining/);
    assert.match(result.stdout, /wrong PIN refused \(exit 1\)/);
    assert.match(result.stdout.trim().split('\n').at(-1) ?? '', /^verified$/);
  });
});
