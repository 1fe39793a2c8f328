// The published package works: `npm pack` (which builds through `prepack`) makes a tarball with the
// compiled CLI, the README and docs and nothing of the sources, tests or data; installed into an empty
// project with --omit=dev, its `twofa serve` starts, answers, and stops cleanly on SIGTERM.
//
// better-sqlite3 is the one native dependency; it ships N-API binaries for each platform inside its
// package (prebuilds/), so the install needs no compiler and no download. The temp install takes the
// same better-sqlite3 version as this project (installed explicitly, so npm cannot pick another) and
// runs with --ignore-scripts, as a locked-down production install would.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanEnv, freePort, PROJECT_ROOT } from '../support/server-process.js';

interface Run { code: number | null; stdout: string; stderr: string }

function run(command: string, args: string[], options: { cwd: string; timeoutMs: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    // npm's own lifecycle variables (npm_config_*, npm_package_*) of the `npm test` around us stay out.
    const env = Object.fromEntries(Object.entries(cleanEnv()).filter(([k]) => !/^npm_/i.test(k)));
    const child = spawn(command, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${command} ${args.join(' ')} timed out\n${stdout}\n${stderr}`)); }, options.timeoutMs);
    child.on('error', (err) => { clearTimeout(timer); reject(err); });
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

function mustSucceed(result: Run, what: string): Run {
  assert.equal(result.code, 0, `${what} failed (${result.code})\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`);
  return result;
}

describe('npm package', { timeout: 170_000 }, () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-pack-'));
  after(() => { fs.rmSync(work, { recursive: true, force: true }); });
  let tarball = '';
  let files: string[] = [];

  it('npm pack builds (prepack) and packs the CLI, README and docs, and no sources, tests or data', async () => {
    const packed = mustSucceed(await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: PROJECT_ROOT, timeoutMs: 120_000 }), 'npm pack');
    // Lifecycle output (the prepack build) may precede the JSON on stdout.
    const report = JSON.parse(packed.stdout.slice(packed.stdout.search(/^\[/m))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = path.join(work, report[0]!.filename);
    files = report[0]!.files.map((f) => f.path);
    assert.ok(fs.existsSync(tarball));

    for (const expected of ['package.json', 'README.md', 'dist/cli/twofa.js', 'dist/app.js', 'dist/web/index.html', 'docs/api.md', 'docs/twilio-verify.md', 'docs/client.md', 'docs/console.md', 'docs/cli.md', 'docs/transports.md', 'docs/configuration.md', 'docs/operations.md', 'docs/scaling.md', 'docs/security.md', 'docs/architecture.md', 'docs/development.md', 'docs/console-dashboard.png', 'docs/deploy/README.md', 'docs/deploy/Dockerfile', 'docs/deploy/twofa.service', 'docs/deploy/twofa.env.example', 'docs/deploy/nginx.conf']) {
      assert.ok(files.includes(expected), `the tarball has ${expected}`);
    }
    const unwanted = files.filter((f) => /^(src|test|data|scripts|bench|web|node_modules|coverage)\//.test(f) || (/\.ts$/.test(f) && !/\.d\.ts$/.test(f)) || /(^|\/)\.env$/.test(f) || /\.(db|db-wal|db-shm)$/.test(f));
    assert.deepEqual(unwanted, [], 'sources, tests, data and databases stay out of the package');
    // tsc never deletes outputs: a dist/ file whose source is gone would ship dead code.
    // (dist/web is the console's bundle, built by Vite from web/, not compiled from src/.)
    const stale = files.filter((f) => /^dist\/.*\.js$/.test(f) && !f.startsWith('dist/web/') && !fs.existsSync(path.join(PROJECT_ROOT, 'src', f.slice('dist/'.length).replace(/\.js$/, '.ts'))));
    assert.deepEqual(stale, [], 'every compiled file has its source (delete dist/ and pack again)');
  });

  it('installs with --omit=dev into an empty project, serves, and stops cleanly on SIGTERM', async () => {
    assert.ok(tarball, 'the tarball of the previous test');
    const project = path.join(work, 'project');
    fs.mkdirSync(project);
    mustSucceed(await run('npm', ['init', '-y'], { cwd: project, timeoutMs: 30_000 }), 'npm init');
    const sqliteVersion = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string }).version;
    mustSucceed(await run('npm', ['install', tarball, `better-sqlite3@${sqliteVersion}`, '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline'], { cwd: project, timeoutMs: 120_000 }), 'npm install');
    assert.ok(!fs.existsSync(path.join(project, 'node_modules', 'typescript')), 'no devDependency is installed');

    const port = await freePort();
    const dataDir = path.join(work, 'data');
    const key = 'packaging-test-key-0123456789abcdef';
    const bin = path.join(project, 'node_modules', '.bin', 'twofa');
    const child = spawn(bin, ['serve'], {
      cwd: project,
      env: { ...cleanEnv(), TWOFA_PORT: String(port), TWOFA_HOST: '127.0.0.1', TWOFA_DATA_DIR: dataDir, TWOFA_BOOTSTRAP_API_KEY: key, TWOFA_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { output += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { output += d; });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const base = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 30_000;
      for (;;) {
        assert.ok(child.exitCode === null, `twofa serve exited early (${child.exitCode})\n${output}`);
        assert.ok(Date.now() < deadline, `twofa serve did not become ready\n${output}`);
        const ready = await fetch(`${base}/readyz`).then(async (r) => { await r.arrayBuffer(); return r.status === 200; }, () => false);
        if (ready) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const created = await fetch(`${base}/2fa/2/applications`, {
        method: 'POST', headers: { authorization: `App ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'packaged' }),
      });
      const application = await created.json() as { applicationId?: string; name?: string };
      assert.equal(created.status, 200, JSON.stringify(application));
      assert.equal(application.name, 'packaged');
      assert.match(application.applicationId ?? '', /^[0-9A-F]{32}$/);
      // The interactive docs ship their static files as runtime dependencies.
      const docs = await fetch(`${base}/docs/static/index.html`);
      assert.equal(docs.status, 200);
      assert.match(await docs.text(), /<html/i);
      // The console ships built (dist/web) and is served from the installed package.
      const consolePage = await fetch(`${base}/console/`);
      assert.equal(consolePage.status, 200);
      assert.match(await consolePage.text(), /<div id="app">/);
      assert.ok(fs.existsSync(path.join(dataDir, 'twofa.db')), 'the database is in TWOFA_DATA_DIR');
    } finally {
      if (child.exitCode === null) child.kill('SIGTERM');
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await exited;
    clearTimeout(timer);
    assert.equal(code, 0, `twofa serve exits 0 on SIGTERM\n${output}`);
  });
});
