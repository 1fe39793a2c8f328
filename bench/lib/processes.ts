// The processes under test: compiled once (tsc into node_modules/.cache/twofa-bench, so that they
// run as plain JavaScript, like `npm start` runs dist/), each started on loopback as its own Node
// process with the same flags, and stopped with SIGTERM so that a --cpu-prof profile is written.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * Where the compiled processes live. BENCH_BUILD_DIR with BENCH_PREBUILT=1 runs another build (an
 * earlier version of src/, compiled the same way) against the same bench, for before/after runs.
 */
export const BUILD_DIR = process.env['BENCH_BUILD_DIR'] ? path.resolve(process.env['BENCH_BUILD_DIR']) : path.join(PROJECT_ROOT, '.bench-build');

export const SCRIPTS = {
  server: path.join(BUILD_DIR, 'src', 'cli', 'twofa.js'),
  ceiling: path.join(BUILD_DIR, 'bench', 'ceiling-server.js'),
  peer: path.join(BUILD_DIR, 'bench', 'peer-server.js'),
  receiver: path.join(BUILD_DIR, 'bench', 'receiver-server.js'),
  provider: path.join(BUILD_DIR, 'bench', 'provider-server.js'),
};

/** Compiles src/ and bench/ to JavaScript (incrementally); type errors are reported, the output is used anyway. */
export function buildForBench(): void {
  if (process.env['BENCH_PREBUILT'] === '1') {
    for (const script of Object.values(SCRIPTS)) if (!fs.existsSync(script)) throw new Error(`BENCH_PREBUILT: ${script} is missing`);
    return;
  }
  const tsc = path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(PROJECT_ROOT, 'bench', 'tsconfig.json'), '--outDir', BUILD_DIR, '--tsBuildInfoFile', path.join(BUILD_DIR, '.tsbuildinfo')], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  if (result.status !== 0) process.stderr.write(`tsc reported problems (the emitted JavaScript is used anyway):\n${result.stdout.slice(0, 2000)}\n`);
  for (const script of Object.values(SCRIPTS)) if (!fs.existsSync(script)) throw new Error(`build did not produce ${script}`);
  // version.ts reads the package.json one level above src/; it also makes the output an ES module package.
  fs.copyFileSync(path.join(PROJECT_ROOT, 'package.json'), path.join(BUILD_DIR, 'package.json'));
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface NodeProcess {
  pid: number;
  url: string;
  /** The last few kB of stderr, for error reports. */
  stderr(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after 20 s). */
  stop(): Promise<void>;
}

export interface StartOptions {
  script: string;
  args?: string[];
  env: Record<string, string>;
  port: number;
  /** A path answering 200 once the process is ready. */
  readyPath: string;
  /** Write a V8 CPU profile into this folder on exit. */
  cpuProfileDir?: string | undefined;
  timeoutMs?: number;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startNodeProcess(options: StartOptions): Promise<NodeProcess> {
  const flags = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
  const env: Record<string, string> = {};
  // Nothing of the caller's TWOFA_* configuration leaks into the process under test.
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TWOFA_') && v !== undefined) env[k] = v;
  // Logs are produced and written as in production, to /dev/null: the bench measures making them, not a disk.
  const child = spawn(process.execPath, [...flags, options.script, ...(options.args ?? [])], {
    cwd: PROJECT_ROOT, env: { ...env, NODE_ENV: 'production', ...options.env }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-8000); });
  const done = exited(child);
  const url = `http://127.0.0.1:${options.port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await done;
    clearTimeout(timer);
  };
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${path.basename(options.script)} exited early (${child.exitCode ?? child.signalCode})\n${stderr}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${path.basename(options.script)} did not become ready in time\n${stderr}`);
    }
    try {
      const response = await fetch(`${url}${options.readyPath}`);
      await response.arrayBuffer();
      if (response.status === 200) return { pid: child.pid!, url, stderr: () => stderr, stop };
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
