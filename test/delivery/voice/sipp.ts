// Runs Debian's sipp (package sip-tester) as the callee of a test: in the foreground, on a free
// loopback port, for a fixed number of calls, killed by the test if it outlives it. Its log files go
// to a temporary directory.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const SCENARIOS = path.join(path.dirname(new URL(import.meta.url).pathname), 'scenarios');

export const sippInstalled = spawnSync('sipp', ['-v'], { stdio: 'ignore' }).error === undefined;
export const espeakInstalled = spawnSync('espeak-ng', ['--version'], { stdio: 'ignore' }).error === undefined && spawnSync('sox', ['--version'], { stdio: 'ignore' }).error === undefined;

export interface SippOptions {
  /** A scenario file under scenarios/, or the built-in `uas`. */
  scenario: string | { builtin: 'uas' };
  transport?: 'udp' | 'tcp';
  calls?: number;
  /** Global variables (`-set name value`), declared in the scenario's <Global>. */
  variables?: Record<string, string>;
  extra?: string[];
  /** sipp stops (and fails) after this long; default 30 s. */
  timeoutSeconds?: number;
}

export interface Sipp {
  port: number;
  /** sipp's media port (the -mp option, where its RTP echo listens). */
  mediaPort: number;
  /** sipp's exit code once it ends (0: every call went through the scenario). */
  exited: Promise<number | null>;
  output(): string;
  stop(): void;
}

/** A UDP port nobody uses right now (and TCP too, for -t t1). */
export async function freePort(): Promise<number> {
  for (;;) {
    const udp = createSocket('udp4');
    const port = await new Promise<number>((resolve) => udp.bind(0, '127.0.0.1', () => resolve(udp.address().port)));
    const tcpFree = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    udp.close();
    // sipp also opens media port + 2 for RTP echo: keep clear of the top of the range.
    if (tcpFree && port < 65000) return port;
  }
}

export async function startSipp(options: SippOptions): Promise<Sipp> {
  const port = await freePort();
  let mediaPort = await freePort();
  while (Math.abs(mediaPort - port) < 4) mediaPort = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'twofa-sipp-'));
  const args = [
    ...(typeof options.scenario === 'string' ? ['-sf', path.join(SCENARIOS, options.scenario)] : ['-sn', options.scenario.builtin]),
    '-i', '127.0.0.1',
    '-p', String(port),
    '-mi', '127.0.0.1',
    '-mp', String(mediaPort),
    '-t', options.transport === 'tcp' ? 't1' : 'u1',
    '-m', String(options.calls ?? 1),
    '-timeout', `${options.timeoutSeconds ?? 30}s`,
    '-timeout_error',
    '-nostdin',
    '-trace_err',
  ];
  for (const [name, value] of Object.entries(options.variables ?? {})) args.push('-set', name, value);
  args.push(...(options.extra ?? []));

  const child: ChildProcess = spawn('sipp', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      rmSync(dir, { recursive: true, force: true });
      resolve(code);
    });
    child.once('error', () => resolve(null));
  });
  await listening(port, options.transport ?? 'udp');
  return {
    port,
    mediaPort,
    exited,
    output: () => output,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Waits until sipp listens: for TCP by connecting once; for UDP a short grace (INVITEs are retransmitted anyway). */
async function listening(port: number, transport: 'udp' | 'tcp'): Promise<void> {
  const until = Date.now() + 5000;
  if (transport === 'udp') {
    await new Promise((resolve) => setTimeout(resolve, 150));
    return;
  }
  while (Date.now() < until) {
    const up = await new Promise<boolean>((resolve) => {
      const probe = connect({ host: '127.0.0.1', port });
      probe.once('connect', () => {
        probe.destroy();
        resolve(true);
      });
      probe.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`sipp did not listen on TCP port ${port}`);
}
