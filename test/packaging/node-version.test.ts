// The supported Node.js versions: `engines` refuses what left support (Node 20), the suite runs on a
// supported one, and scripts/use-node-24.sh (what .ci/run sources) puts Node 24 first on PATH when the
// machine's node is older, with npm_config_nodedir at its headers, and changes nothing otherwise.
// The script runs from a copy in a temporary folder beside stand-in `node` binaries, so the test needs
// no download and never touches the project's own .node24/.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../support/server-process.js';

const SCRIPT = path.join(PROJECT_ROOT, 'scripts', 'use-node-24.sh');

/** A `node` that answers the one question the script asks it: its major version. */
function standInNode(dir: string, version: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'node'), `#!/bin/sh\necho ${version.split('.')[0]}\n`, { mode: 0o755 });
}

describe('Node.js versions', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-node-version-'));
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  /** Sources a copy of the script under `root` with `machineNode` first on PATH; answers what it exported. */
  function sourceScript(root: string, machineNode: string): { path: string; nodedir: string; node: string } {
    fs.mkdirSync(path.join(root, 'scripts'), { recursive: true });
    fs.copyFileSync(SCRIPT, path.join(root, 'scripts', 'use-node-24.sh'));
    const run = spawnSync('bash', ['-c', '. scripts/use-node-24.sh && printf "%s\\n%s\\n%s" "$PATH" "${npm_config_nodedir:-}" "$(command -v node)"'], {
      cwd: root, encoding: 'utf8', env: { PATH: `${machineNode}:/usr/bin:/bin` },
    });
    assert.equal(run.status, 0, run.stderr);
    const [pathValue = '', nodedir = '', node = ''] = run.stdout.split('\n');
    return { path: pathValue, nodedir, node };
  }

  it('engines accepts Node 22 and later only, and the suite runs on one of them', () => {
    const engines = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    assert.equal(engines, '>=22');
    assert.ok(Number(process.versions.node.split('.')[0]) >= 22, `the suite runs on Node ${process.versions.node}`);
  });

  it('puts the unpacked Node 24 first on PATH, and its headers in npm_config_nodedir, when the machine has Node 20', () => {
    const root = path.join(work, 'old');
    standInNode(path.join(root, 'machine-bin'), '20.20.2');
    standInNode(path.join(root, '.node24', 'bin'), '24.21.0');
    const env = sourceScript(root, path.join(root, 'machine-bin'));
    assert.equal(env.node, path.join(root, '.node24', 'bin', 'node'));
    assert.equal(env.path.split(':')[0], path.join(root, '.node24', 'bin'));
    assert.equal(env.nodedir, path.join(root, '.node24'));
  });

  it('changes nothing when the machine already has Node 22 or later', () => {
    const root = path.join(work, 'current');
    standInNode(path.join(root, 'machine-bin'), '24.1.0');
    const env = sourceScript(root, path.join(root, 'machine-bin'));
    assert.equal(env.node, path.join(root, 'machine-bin', 'node'));
    assert.equal(env.nodedir, '');
    assert.ok(!fs.existsSync(path.join(root, '.node24')), 'nothing unpacked');
  });
});
