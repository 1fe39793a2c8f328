// A real `twofa serve` process for end-to-end tests: its own temp data folder (SQLite file), a fixed
// secret and API key, stdout and stderr captured, ready once /readyz answers 200.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI_ENTRY = path.join(PROJECT_ROOT, 'src', 'cli', 'twofa.ts');
export const TEST_SECRET = 'e2e-secret-0123456789-ABCDEFGHIJ-klmnopq';
export const TEST_API_KEY = 'e2e-bootstrap-key-0123456789abcdef';

export interface ServerProcess {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** The bootstrap API key (account `default`, all scopes). */
  key: string;
  dataDir: string;
  /** The process id (tests kill -9 a node to show another takes over its work). */
  pid: number;
  /** Everything the process wrote to stdout and stderr so far, interleaved in arrival order. */
  output(): string;
  /** SIGTERM, then the exit code once the process has ended (null if it died of a signal). */
  stop(): Promise<number | null>;
}

/** A free TCP port on 127.0.0.1 (closed again before it is returned, so there is a tiny race window). */
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

/** process.env without any TWOFA_* variable (the test runner sets TWOFA_LOG_LEVEL=silent, for one). */
export function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TWOFA_') && v !== undefined) env[k] = v;
  return env;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The tests' traffic looks like SMS pumping (sequential numbers, never verified): servers and CLI runs
 * started here score nothing for applications that never set a risk mode, unless `env` says otherwise
 * (as test/support/harness.ts does in process).
 */
const RISK_OFF = { TWOFA_RISK_DEFAULT_MODE: 'off' };

/** Runs `twofa <args>` (through tsx) to completion. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_ENTRY, ...args], {
      cwd: PROJECT_ROOT, env: { ...cleanEnv(), ...RISK_OFF, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`twofa ${args.join(' ')} timed out\n${stdout}\n${stderr}`)); }, timeoutMs);
    child.on('error', (err) => { clearTimeout(timer); reject(err); });
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

function waitForExit(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * Starts `node --import tsx src/cli/twofa.ts serve`. Defaults: a new temp TWOFA_DATA_DIR, TWOFA_SECRET
 * and TWOFA_BOOTSTRAP_API_KEY fixed above, TWOFA_LOG_LEVEL=info, TWOFA_PORT=0 (the port is read from the
 * "twofa is listening" log line). `env` overrides any of them.
 */
export async function startServerProcess(env: Record<string, string> = {}, options: { timeoutMs?: number } = {}): Promise<ServerProcess> {
  const dataDir = env['TWOFA_DATA_DIR'] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-e2e-'));
  const merged: Record<string, string> = {
    TWOFA_DATA_DIR: dataDir,
    TWOFA_SECRET: TEST_SECRET,
    TWOFA_BOOTSTRAP_API_KEY: TEST_API_KEY,
    TWOFA_LOG_LEVEL: 'info',
    TWOFA_HOST: '127.0.0.1',
    ...RISK_OFF,
    ...env,
  };
  // Without the info-level "listening" line the port cannot be read from the log: choose it here.
  if (merged['TWOFA_PORT'] === undefined) {
    merged['TWOFA_PORT'] = ['info', 'debug', 'trace'].includes(merged['TWOFA_LOG_LEVEL'] ?? '') ? '0' : String(await freePort());
  }
  const child = spawn(process.execPath, ['--import', 'tsx', CLI_ENTRY, 'serve'], {
    cwd: PROJECT_ROOT, env: { ...cleanEnv(), ...merged }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdoutBuffer = '';
  let announcedUrl: string | undefined;
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    stdoutBuffer += chunk;
    let newline: number;
    while ((newline = stdoutBuffer.indexOf('\n')) !== -1) {
      const line = stdoutBuffer.slice(0, newline);
      stdoutBuffer = stdoutBuffer.slice(newline + 1);
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'twofa is listening' && typeof entry.url === 'string') announcedUrl = entry.url;
      } catch { /* not a JSON log line */ }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  const exited = waitForExit(child);

  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };

  // A hang, not a slow start, is what this bounds (a crash ends the wait at once: "exited early"). A
  // fresh checkout's first servers compile src/ through tsx with a cold cache while the other test
  // files run beside them on two cores: 30 s was not always enough in CI.
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  const fixedPort = merged['TWOFA_PORT'] !== '0' ? merged['TWOFA_PORT'] : undefined;
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`twofa serve exited early (${child.exitCode ?? child.signalCode})`);
      if (Date.now() > deadline) throw new Error('twofa serve did not become ready in time');
      const url = announcedUrl ?? (fixedPort ? `http://127.0.0.1:${fixedPort}` : undefined);
      if (url) {
        try {
          const response = await fetch(`${url}/readyz`);
          await response.arrayBuffer();
          if (response.status === 200) {
            return { url, key: merged['TWOFA_BOOTSTRAP_API_KEY'] ?? '', dataDir, pid: child.pid!, output: () => output, stop };
          }
        } catch { /* not listening yet */ }
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n--- output ---\n${output}`);
  }
}
